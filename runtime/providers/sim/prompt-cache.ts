import type { MeasuredSegment } from './segment-meter.ts';

/** Cache accounting for one request, in the canonical convention (reads and writes apart from plain input). */
export interface CacheUsage {
  cached_input_tokens: number;
  cache_creation_input_tokens: number;
}

/** Anthropic's ephemeral cache lifetime; OpenAI documents 5–10 minutes idle, we take the low end. */
export const CACHE_TTL_US = 5 * 60 * 1_000_000;

/** OpenAI caches in 128-token steps past its 1024-token floor. */
export const OPENAI_CACHE_INCREMENT_TOKENS = 128;

interface Node {
  children: Map<string, Node>;
  /** When the entry ending at this node expires (virtual µs); 0 means no entry here. */
  expiresAtUs: number;
}

/**
 * The provider-side prompt cache of one simulated provider instance: a trie per model over
 * segment keys, so a prefix is identified by its exact bytes and lookups cost one map hit per
 * segment. Entries expire on the virtual clock.
 */
export interface PromptCache {
  /** Anthropic rules: only explicit breakpoints cache; a prefix below `minTokens` is silently not cached. */
  anthropic(model: string, segments: readonly MeasuredSegment[], breakpoints: readonly number[], minTokens: number, nowUs: number): CacheUsage;
  /** OpenAI rules: automatic longest-prefix match, ≥ `minTokens` in 128-token steps, writes billed as plain input. */
  openai(model: string, segments: readonly MeasuredSegment[], minTokens: number, nowUs: number): CacheUsage;
  /** Trie nodes held (for tests of the bound). */
  size(): number;
}

/** Creates an empty cache; expired branches are swept once the trie passes `sweepAt` nodes. */
export function createPromptCache(ttlUs = CACHE_TTL_US, sweepAt = 50_000): PromptCache {
  const roots = new Map<string, Node>();
  let nodes = 0;
  let threshold = sweepAt;

  const newNode = (): Node => {
    nodes++;
    return { children: new Map(), expiresAtUs: 0 };
  };

  /** path[d] is the node after d segments (path[0] the root), created as needed up to `depth`. */
  function walk(model: string, segments: readonly MeasuredSegment[], depth: number): Node[] {
    let node: Node | undefined = roots.get(model);
    if (!node) roots.set(model, (node = newNode()));
    const path = [node];
    for (let i = 0; i < depth; i++) {
      const key = segments[i]!.key;
      let child: Node | undefined = node.children.get(key);
      if (!child) node.children.set(key, (child = newNode()));
      path.push((node = child));
    }
    return path;
  }

  /** Drops expired entries with no live descendants so a long run holds only live prefixes. */
  function sweep(nowUs: number): void {
    const prune = (node: Node): boolean => {
      for (const [k, child] of node.children) {
        if (prune(child)) {
          node.children.delete(k);
          nodes--;
        }
      }
      return node.children.size === 0 && node.expiresAtUs <= nowUs;
    };
    for (const root of roots.values()) prune(root);
    threshold = Math.max(sweepAt, nodes * 2);
  }

  const cumulative = (segments: readonly MeasuredSegment[]): number[] => {
    const cum = [0];
    for (const s of segments) cum.push(cum[cum.length - 1]! + s.tokens);
    return cum;
  };

  return {
    anthropic(model, segments, breakpoints, minTokens, nowUs) {
      const cum = cumulative(segments);
      // Below the floor Anthropic drops the marker: no read, no write.
      const eligible = breakpoints.filter((d) => cum[d]! >= minTokens);
      const longest = eligible[eligible.length - 1];
      if (longest === undefined) return { cached_input_tokens: 0, cache_creation_input_tokens: 0 };
      const path = walk(model, segments, longest);
      let hit = 0;
      for (let i = eligible.length - 1; i >= 0; i--) {
        if (path[eligible[i]!]!.expiresAtUs > nowUs) {
          hit = eligible[i]!;
          break;
        }
      }
      // A read refreshes its entry; every longer breakpoint is written (from where the read ends).
      for (const d of eligible) if (d >= hit) path[d]!.expiresAtUs = nowUs + ttlUs;
      if (nodes > threshold) sweep(nowUs);
      return { cached_input_tokens: cum[hit]!, cache_creation_input_tokens: cum[longest]! - cum[hit]! };
    },

    openai(model, segments, minTokens, nowUs) {
      const cum = cumulative(segments);
      const path = walk(model, segments, segments.length);
      let matched = 0;
      for (let d = segments.length; d > 0; d--) {
        if (path[d]!.expiresAtUs > nowUs) {
          matched = cum[d]!;
          break;
        }
      }
      // Every prefix of this request long enough to cache is now cached (or refreshed).
      for (let d = 1; d <= segments.length; d++) if (cum[d]! >= minTokens) path[d]!.expiresAtUs = nowUs + ttlUs;
      if (nodes > threshold) sweep(nowUs);
      const cached = matched >= minTokens ? minTokens + Math.floor((matched - minTokens) / OPENAI_CACHE_INCREMENT_TOKENS) * OPENAI_CACHE_INCREMENT_TOKENS : 0;
      return { cached_input_tokens: cached, cache_creation_input_tokens: 0 };
    },

    size: () => nodes,
  };
}
