import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hrTimeOfUs, spanIdOf, traceIdOf } from './span-ids.ts';

describe('span ids and times', () => {
  it('turns UTC microseconds into [s, ns] exactly, for any timestamp up to year 2255', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 9_007_199_254_740 * 1000 }), (us) => {
        const [s, ns] = hrTimeOfUs(us);
        expect(Number.isInteger(s) && Number.isInteger(ns)).toBe(true);
        expect(ns).toBeGreaterThanOrEqual(0);
        expect(ns).toBeLessThan(1e9);
        expect(BigInt(s) * 1_000_000n + BigInt(ns / 1000)).toBe(BigInt(us));
      }),
    );
  });

  it('derives valid W3C ids, the same for the same input and different for different keys', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), fc.string(), (run, a, b) => {
        const t = traceIdOf(run);
        expect(t).toMatch(/^[0-9a-f]{32}$/);
        expect(t).not.toMatch(/^0+$/);
        expect(traceIdOf(run)).toBe(t);
        const sa = spanIdOf(run, a);
        expect(sa).toMatch(/^[0-9a-f]{16}$/);
        expect(spanIdOf(run, a)).toBe(sa);
        if (a !== b) expect(spanIdOf(run, b)).not.toBe(sa);
      }),
    );
  });

  it('keeps the parts of a key apart (run "ab" + key "c" is not run "a" + key "bc")', () => {
    expect(spanIdOf('ab', 'c')).not.toBe(spanIdOf('a', 'bc'));
  });
});
