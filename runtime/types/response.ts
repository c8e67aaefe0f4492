import type { ContentBlock } from './content.ts';

export type StopReason = 'end_turn' | 'max_tokens' | 'stop_sequence' | 'tool_use';

/**
 * Token usage in one convention for every provider: `input_tokens` is uncached input only;
 * cache reads and cache writes are counted separately.
 */
export interface Usage {
  input_tokens: number;
  output_tokens: number;
  cached_input_tokens: number;
  cache_creation_input_tokens: number;
}

/** Provider-neutral response. */
export interface CanonicalResponse {
  model: string;
  content: ContentBlock[];
  stop_reason: StopReason;
  usage: Usage;
  /** Wall latency for real providers, simulated latency for `sim`. */
  latency_ms: number;
  /** Adapter-issued id for cross-referencing logs. */
  request_id: string;
  /** Set when a cache tier answered instead of the provider (runtime/cache): no model was called. */
  served_from_cache?: ServedFromCache;
}

/** How a cached answer was served: the tier, the entry, and what serving it cost (USD decimal text). */
export interface ServedFromCache {
  tier: 'exact' | 'semantic' | 'intermediate';
  entry_id: string;
  /** 0 with a local embedder; an embedding's price with a paid one. */
  served_cost_usd: string;
}

/** Zero usage, for sums. */
export const ZERO_USAGE: Usage = Object.freeze({
  input_tokens: 0,
  output_tokens: 0,
  cached_input_tokens: 0,
  cache_creation_input_tokens: 0,
});

/** Component-wise sum of two usages. */
export function addUsage(a: Usage, b: Usage): Usage {
  return {
    input_tokens: a.input_tokens + b.input_tokens,
    output_tokens: a.output_tokens + b.output_tokens,
    cached_input_tokens: a.cached_input_tokens + b.cached_input_tokens,
    cache_creation_input_tokens: a.cache_creation_input_tokens + b.cache_creation_input_tokens,
  };
}
