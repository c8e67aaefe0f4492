import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MismatchCostCalculator } from './mismatch-cost.ts';

describe('MismatchCostCalculator (§4)', () => {
  const m = new MismatchCostCalculator();
  it('follows the spec formula', () => {
    expect(m.mismatchCost(0.9, 'coding', 0.01)).toBeCloseTo(0.1 * 2 * 3 * 0.01, 12);
    expect(m.mismatchCost(1, 'legal', 5)).toBe(0);
  });
  it('reuses at high similarity and recomputes at low, stricter for sensitive tasks', () => {
    expect(m.shouldUseCache(0.95, 'faq', 0.01)[0]).toBe(true);
    expect(m.shouldUseCache(0.3, 'faq', 0.01)).toEqual([false, 'Recomputing: mismatch risk too high']);
    // faq breaks even at s = 0.5, coding at 1 − 1/6, legal at 0.875.
    expect(m.shouldUseCache(0.8, 'faq', 1)[0]).toBe(true);
    expect(m.shouldUseCache(0.8, 'coding', 1)[0]).toBe(false);
    expect(m.shouldUseCache(0.87, 'legal', 1)[0]).toBe(false);
    expect(m.shouldUseCache(0.88, 'legal', 1)[0]).toBe(true);
  });
  it('uses the default weight for an unknown task type and refuses bad inputs', () => {
    expect(m.taskWeight('astrology')).toBe(2);
    expect(() => m.mismatchCost(1.5, 'faq', 1)).toThrow(RangeError);
    expect(() => m.mismatchCost(0.5, 'faq', -1)).toThrow(RangeError);
  });
  it('the decision does not depend on the cost scale (property)', () => {
    fc.assert(
      fc.property(fc.double({ min: -1, max: 1, noNaN: true }), fc.double({ min: 1e-6, max: 100, noNaN: true }), fc.constantFrom('faq', 'coding', 'legal', 'x'), (s, c, t) => {
        // Away from the break-even point, where float rounding of the product could tip either way.
        fc.pre(Math.abs((1 - s) * 2 * m.taskWeight(t) - 1) > 1e-9);
        expect(m.shouldUseCache(s, t, c)[0]).toBe(m.shouldUseCache(s, t, 1)[0]);
      }),
    );
  });
});
