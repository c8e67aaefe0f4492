import { Tiktoken } from 'js-tiktoken/lite';
import o200kBase from 'js-tiktoken/ranks/o200k_base';

/** Counts tokens in a string. */
export interface TokenCounter {
  count(text: string): number;
}

let encoder: Tiktoken | undefined;

/** The o200k_base encoder, built once per process on first use (parsing the ranks takes ~100 ms). */
function o200k(): Tiktoken {
  encoder ??= new Tiktoken(o200kBase);
  return encoder;
}

/** Options for createTiktokenCounter. */
export interface TiktokenCounterOptions {
  /** Distinct strings remembered (least recently used evicted). Default 10,000. */
  maxEntries?: number;
}

/**
 * A real BPE count with o200k_base (GPT-4o/GPT-5). Claude's tokenizer is not public, so for
 * Anthropic models this is an approximation (Claude typically counts somewhat more tokens for
 * the same text). Memoized per string so a long run does not re-tokenize its stable prefix.
 */
export function createTiktokenCounter(options: TiktokenCounterOptions = {}): TokenCounter {
  const max = options.maxEntries ?? 10_000;
  const memo = new Map<string, number>();
  return {
    count(text) {
      if (text.length === 0) return 0;
      const hit = memo.get(text);
      if (hit !== undefined) {
        // Re-insert to mark as recently used; Map keeps insertion order.
        memo.delete(text);
        memo.set(text, hit);
        return hit;
      }
      // Special-token text such as <|endoftext|> in a tool result is ordinary text here.
      const n = o200k().encode(text, [], []).length;
      if (max > 0) {
        memo.set(text, n);
        if (memo.size > max) memo.delete(memo.keys().next().value!);
      }
      return n;
    },
  };
}
