import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { CACHE_TTL_US, createPromptCache } from './prompt-cache.ts';
import type { MeasuredSegment } from './segment-meter.ts';

const seg = (key: string, tokens: number): MeasuredSegment => ({ key, tokens });
const M = 'anthropic:m';

describe('anthropic breakpoints', () => {
  it('reads the longest live breakpoint and writes only what lies beyond it', () => {
    const cache = createPromptCache();
    const tools = seg('tool:a', 3000);
    // First request: tools + system S1, both breakpoints eligible; everything written.
    expect(cache.anthropic(M, [tools, seg('system:1', 2000), seg('user:x', 50)], [1, 2], 1024, 0)).toEqual({
      cached_input_tokens: 0,
      cache_creation_input_tokens: 5000,
    });
    // System changed: the tools breakpoint still hits; the new system part is written.
    expect(cache.anthropic(M, [tools, seg('system:2', 2500), seg('user:x', 50)], [1, 2], 1024, 1)).toEqual({
      cached_input_tokens: 3000,
      cache_creation_input_tokens: 2500,
    });
  });

  it('skips a breakpoint under the floor but still caches a longer one above it', () => {
    const cache = createPromptCache();
    const segs = [seg('tool:a', 500), seg('system:1', 4000)];
    expect(cache.anthropic(M, segs, [1, 2], 4096, 0).cache_creation_input_tokens).toBe(4500);
    expect(cache.anthropic(M, segs, [1, 2], 4096, 1).cached_input_tokens).toBe(4500);
    // Only the short prefix again: it was never written (below the floor), so no read.
    expect(cache.anthropic(M, [seg('tool:a', 500), seg('system:9', 10)], [1, 2], 4096, 2)).toEqual({ cached_input_tokens: 0, cache_creation_input_tokens: 0 });
  });

  it('keeps entries per model', () => {
    const cache = createPromptCache();
    const segs = [seg('system:1', 5000)];
    cache.anthropic(M, segs, [1], 1024, 0);
    expect(cache.anthropic('anthropic:other', segs, [1], 1024, 1).cached_input_tokens).toBe(0);
  });

  it('never reports more cache tokens than the request holds (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.constantFrom('a', 'b', 'c'), fc.nat({ max: 3000 })), { minLength: 1, maxLength: 6 }), fc.nat({ max: 5000 }), (raw, min) => {
        const cache = createPromptCache();
        const segs = raw.map(([k, n], i) => seg(`${i}:${k}:${n}`, n));
        const bps = [1, Math.min(2, segs.length)];
        const total = segs.reduce((s, x) => s + x.tokens, 0);
        for (let t = 0; t < 3; t++) {
          const u = cache.anthropic(M, segs, [...new Set(bps)], min, t);
          expect(u.cached_input_tokens + u.cache_creation_input_tokens).toBeLessThanOrEqual(total);
        }
      }),
    );
  });
});

describe('openai automatic prefix cache', () => {
  it('caches the matched prefix in 128-token steps past the 1024 floor, with no write charge', () => {
    const cache = createPromptCache();
    const a = [seg('system:s', 1100), seg('tool:t', 300), seg('user:1', 40)];
    expect(cache.openai('openai:m', a, 1024, 0)).toEqual({ cached_input_tokens: 0, cache_creation_input_tokens: 0 });
    // Shares the first two segments (1400 tokens) → 1024 + 2·128 = 1280 cached.
    const b = [...a.slice(0, 2), seg('user:2', 40)];
    expect(cache.openai('openai:m', b, 1024, 1)).toEqual({ cached_input_tokens: 1280, cache_creation_input_tokens: 0 });
  });

  it('does not cache a match under 1024 tokens', () => {
    const cache = createPromptCache();
    cache.openai('openai:m', [seg('system:s', 1000), seg('user:1', 100)], 1024, 0);
    expect(cache.openai('openai:m', [seg('system:s', 1000), seg('user:2', 100)], 1024, 1).cached_input_tokens).toBe(0);
  });
});

describe('expiry and memory', () => {
  it('expires an entry TTL after its last use', () => {
    const cache = createPromptCache();
    const segs = [seg('system:1', 5000)];
    cache.anthropic(M, segs, [1], 1024, 0);
    expect(cache.anthropic(M, segs, [1], 1024, CACHE_TTL_US - 1).cached_input_tokens).toBe(5000);
    expect(cache.anthropic(M, segs, [1], 1024, 2 * CACHE_TTL_US - 2).cached_input_tokens).toBe(5000);
    expect(cache.anthropic(M, segs, [1], 1024, 3 * CACHE_TTL_US).cache_creation_input_tokens).toBe(5000);
  });

  it('sweeps expired prefixes so a long run stays bounded', () => {
    const cache = createPromptCache(CACHE_TTL_US, 1000);
    for (let i = 0; i < 5000; i++) cache.openai('openai:m', [seg('system:s', 2000), seg(`user:${i}`, 10)], 1024, i * CACHE_TTL_US);
    expect(cache.size()).toBeLessThan(2100);
  });
});
