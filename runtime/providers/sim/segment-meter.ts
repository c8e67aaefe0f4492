import { createHash } from 'node:crypto';
import type { TokenCounter } from './token-counter.ts';
import type { RequestSegment } from './request-segments.ts';

/** A segment's token count and its identity for prefix-cache lookups. */
export interface MeasuredSegment {
  tokens: number;
  /** `kind:sha256(text)`: equal keys mean byte-identical segments of the same kind. */
  key: string;
}

/** Measures segments, remembering each distinct text (least recently used evicted). */
export interface SegmentMeter {
  measure(segment: RequestSegment): MeasuredSegment;
}

/** Creates a meter over `counter`; `maxEntries` bounds the memo (default 10,000 distinct texts). */
export function createSegmentMeter(counter: TokenCounter, maxEntries = 10_000): SegmentMeter {
  const memo = new Map<string, { tokens: number; digest: string }>();
  return {
    measure({ kind, text }) {
      let m = memo.get(text);
      if (m) {
        memo.delete(text);
        memo.set(text, m);
      } else {
        m = { tokens: counter.count(text), digest: createHash('sha256').update(text).digest('base64') };
        memo.set(text, m);
        if (memo.size > maxEntries) memo.delete(memo.keys().next().value!);
      }
      return { tokens: m.tokens, key: `${kind}:${m.digest}` };
    },
  };
}
