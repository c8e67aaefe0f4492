import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { mean, sampleStd } from './stats.ts';

describe('stats', () => {
  it('known values', () => {
    expect(mean([1, 2, 3])).toBe(2);
    expect(sampleStd([2, 4, 4, 4, 5, 5, 7, 9])).toBeCloseTo(2.138089935, 8);
    expect(sampleStd([0.5])).toBeNull();
    expect(mean([])).toBeNull();
  });

  it('std is zero exactly when all reps agree, and shift-invariant (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 2, maxLength: 20 }), fc.double({ min: -1, max: 1, noNaN: true }), (xs, k) => {
        const s = sampleStd(xs)!;
        expect(s).toBeGreaterThanOrEqual(0);
        expect(sampleStd(xs.map((x) => x + k))!).toBeCloseTo(s, 9);
        if (xs.every((x) => x === xs[0])) expect(s).toBeCloseTo(0, 12);
      }),
    );
  });
});
