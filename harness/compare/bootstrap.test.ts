import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bootstrapCI, quantile } from './bootstrap.ts';

const mean = (xs: readonly number[]): number => xs.reduce((s, x) => s + x, 0) / xs.length;
const opts = (seed: number) => ({ iterations: 2000, confidence: 0.95, seed });
const A = [0.61, 0.55, 0.7, 0.64, 0.58, 0.66];

describe('bootstrapCI', () => {
  it('is reproducible: the same seed gives the same interval, another seed a different one', () => {
    const b = A.map((x) => x + 0.05);
    const first = bootstrapCI(A, b, mean, opts(7));
    expect(bootstrapCI(A, b, mean, opts(7))).toEqual(first);
    const other = bootstrapCI(A, b, mean, opts(8));
    expect([other!.low, other!.high]).not.toEqual([first!.low, first!.high]);
  });

  it('a known shift of +0.2 gives an interval that excludes zero and contains the shift', () => {
    const ci = bootstrapCI(A, A.map((x) => x + 0.2), mean, opts(0))!;
    expect(ci.low).toBeGreaterThan(0);
    expect(ci.low).toBeLessThanOrEqual(0.2);
    expect(ci.high).toBeGreaterThanOrEqual(0.2);
    expect(ci).toMatchObject({ samples_a: 6, samples_b: 6, iterations_used: 2000, confidence: 0.95 });
  });

  it('samples compared with themselves give an interval that contains zero', () => {
    fc.assert(
      fc.property(fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 2, maxLength: 12 }), fc.nat(1000), (xs, seed) => {
        const ci = bootstrapCI(xs, xs, mean, { iterations: 400, confidence: 0.95, seed })!;
        return ci.low <= 1e-12 && ci.high >= -1e-12 && ci.low <= ci.high;
      }),
      { numRuns: 60 },
    );
  });

  it('is null with an empty arm, or when the statistic is undefined on most resamples', () => {
    expect(bootstrapCI([], A, mean, opts(0))).toBeNull();
    expect(bootstrapCI(A, A, () => null, opts(0))).toBeNull();
  });

  it('drops resamples whose statistic is undefined and says how many it kept', () => {
    // Ratio of sums: undefined when every resampled denominator is zero ((4/6)^6, about 9% of resamples per arm here).
    const xs = [{ n: 1, d: 2 }, { n: 1, d: 4 }, ...Array.from({ length: 4 }, () => ({ n: 0, d: 0 }))];
    const ratio = (s: readonly { n: number; d: number }[]) => {
      const d = s.reduce((t, x) => t + x.d, 0);
      return d === 0 ? null : s.reduce((t, x) => t + x.n, 0) / d;
    };
    const ci = bootstrapCI(xs, xs, ratio, opts(3))!;
    expect(ci.iterations_used).toBeLessThan(2000);
    expect(ci.iterations_used).toBeGreaterThan(1400);
  });
});

describe('quantile', () => {
  it('interpolates between order statistics and stays within the data', () => {
    expect(quantile([0, 10], 0.25)).toBe(2.5);
    expect(quantile([1, 2, 3, 4, 5], 0.5)).toBe(3);
    fc.assert(
      fc.property(fc.array(fc.double({ min: -1e6, max: 1e6, noNaN: true }), { minLength: 1, maxLength: 30 }), fc.double({ min: 0, max: 1, noNaN: true }), fc.double({ min: 0, max: 1, noNaN: true }), (xs, p, q) => {
        const s = [...xs].sort((a, b) => a - b);
        const [lo, hi] = p <= q ? [p, q] : [q, p];
        return quantile(s, lo) >= s[0]! && quantile(s, hi) <= s.at(-1)! && quantile(s, lo) <= quantile(s, hi) + 1e-9;
      }),
    );
  });
});
