import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { backoff, DEFAULT_BACKOFF } from './backoff.ts';

const options = fc.record({ baseMs: fc.integer({ min: 1, max: 10_000 }), capMs: fc.integer({ min: 1, max: 120_000 }) });
const attempt = fc.integer({ min: 0, max: 60 });
const unit = fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true });

describe('backoff (full jitter)', () => {
  it('stays within [0, min(cap, base·2^attempt)] and is a whole number of ms', () => {
    fc.assert(
      fc.property(attempt, options, unit, (a, o, r) => {
        const ms = backoff(a, o, () => r);
        expect(Number.isInteger(ms)).toBe(true);
        expect(ms).toBeGreaterThanOrEqual(0);
        expect(ms).toBeLessThanOrEqual(Math.min(o.capMs, o.baseMs * 2 ** a));
      }),
    );
  });

  it('is monotone in the random draw and its envelope never shrinks with the attempt', () => {
    fc.assert(
      fc.property(attempt, options, unit, unit, (a, o, r1, r2) => {
        const [lo, hi] = r1 <= r2 ? [r1, r2] : [r2, r1];
        expect(backoff(a, o, () => lo)).toBeLessThanOrEqual(backoff(a, o, () => hi));
        expect(backoff(a, o, () => hi)).toBeLessThanOrEqual(backoff(a + 1, o, () => hi));
      }),
    );
  });

  it('doubles per attempt until the cap (draw near 1)', () => {
    const near1 = () => 0.999999;
    expect([0, 1, 2, 3, 4, 5, 6].map((a) => backoff(a, DEFAULT_BACKOFF, near1))).toEqual([999, 1999, 3999, 7999, 15999, 29999, 29999]);
    expect(backoff(3, DEFAULT_BACKOFF, () => 0)).toBe(0);
  });

  it('rejects a negative or fractional attempt', () => {
    expect(() => backoff(-1, DEFAULT_BACKOFF, () => 0.5)).toThrow(RangeError);
    expect(() => backoff(1.5, DEFAULT_BACKOFF, () => 0.5)).toThrow(RangeError);
  });
});
