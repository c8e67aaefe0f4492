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

  it.each(['faq', 'summarization', 'reasoning', 'coding', 'legal', 'astrology'])('similarity 1.0 costs nothing and reuses for %s', (t) => {
    expect(m.mismatchCost(1, t, 0.5)).toBe(0);
    expect(m.shouldUseCache(1, t, 0.5)[0]).toBe(true);
  });

  // Break-even s* = 1 − 1 / (penalty × weight): exactly there the costs are equal and it recomputes
  // (strictly cheaper only); just above it reuses.
  it.each([
    ['faq', 0.5],
    ['summarization', 1 - 1 / 3],
    ['reasoning', 0.8],
    ['coding', 1 - 1 / 6],
    ['legal', 0.875],
  ])('%s breaks even at %f: recomputes there, reuses just above', (t, s) => {
    expect(m.mismatchCost(s, t, 1)).toBeCloseTo(1, 12);
    expect(m.shouldUseCache(s - 1e-9, t, 1)[0]).toBe(false);
    expect(m.shouldUseCache(s + 1e-9, t, 1)[0]).toBe(true);
  });

  it('the reason for a reuse states both costs', () => {
    const [use, why] = m.shouldUseCache(0.9, 'faq', 0.01);
    expect(use).toBe(true);
    const [, mc, rc] = /^Mismatch cost \$(\S+) < recompute cost \$(\S+)$/.exec(why)!;
    expect([Number(mc), Number(rc)]).toEqual([m.mismatchCost(0.9, 'faq', 0.01), 0.01]);
    expect(Number(mc)).toBeCloseTo(0.002, 12);
  });

  it('orders the task types by sensitivity at the same similarity and cost', () => {
    const costs = ['faq', 'summarization', 'reasoning', 'coding', 'legal'].map((t) => m.mismatchCost(0.9, t, 1));
    expect([...costs].sort((a, b) => a - b)).toEqual(costs);
    expect(new Set(costs).size).toBe(5);
  });

  it('similarity -1 is the largest cost (twice the penalty × weight × cost)', () => {
    expect(m.mismatchCost(-1, 'faq', 1)).toBe(4);
    expect(m.shouldUseCache(-1, 'faq', 1)[0]).toBe(false);
  });

  it('a free recompute (cost 0) is never worth a risk: it recomputes even at similarity 1', () => {
    expect(m.shouldUseCache(1, 'faq', 0)[0]).toBe(false);
  });

  it('config: overriding one task weight keeps the other defaults; penalty 0 always reuses; a negative penalty is refused', () => {
    const c = new MismatchCostCalculator({ task_weights: { faq: 5 } });
    expect([c.taskWeight('faq'), c.taskWeight('legal')]).toEqual([5, 4]);
    expect(new MismatchCostCalculator({ quality_penalty_weight: 0 }).shouldUseCache(0, 'legal', 1)[0]).toBe(true);
    expect(() => new MismatchCostCalculator({ quality_penalty_weight: -1 })).toThrow(RangeError);
    expect(new MismatchCostCalculator({ default_task_weight: 1 }).taskWeight('astrology')).toBe(1);
  });

  it('refuses NaN inputs instead of deciding on them', () => {
    expect(() => m.mismatchCost(Number.NaN, 'faq', 1)).toThrow(RangeError);
    expect(() => m.mismatchCost(0.5, 'faq', Number.NaN)).toThrow(RangeError);
  });
});
