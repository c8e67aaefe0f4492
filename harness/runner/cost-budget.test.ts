import { Decimal } from 'decimal.js';
import { describe, expect, it } from 'vitest';
import { budgetWarning, costModeOf, costModes } from './cost-budget.ts';

describe('cost budget (benchmark.md §5)', () => {
  it('has the four modes of the spec table', () => {
    expect(costModes().map((m) => [m.id, m.high])).toEqual([
      ['smoke', '0.20'],
      ['suite', '1.00'],
      ['suite-sonnet', '3.00'],
      ['suite-opus', '5.00'],
    ]);
  });

  it('picks the mode from the workload count and the actual model', () => {
    expect(costModeOf(1, 'anthropic:claude-opus-4-5').id).toBe('smoke');
    expect(costModeOf(3, 'anthropic:claude-haiku-4-5').id).toBe('suite');
    expect(costModeOf(3, 'anthropic:claude-sonnet-4-6').id).toBe('suite-sonnet');
    expect(costModeOf(3, 'anthropic:claude-opus-4-5').id).toBe('suite-opus');
  });

  it('warns only past twice the upper bound, scaled by pass-reps', () => {
    const suite = costModeOf(3, 'haiku');
    expect(budgetWarning(new Decimal('2.00'), suite, 3, 3)).toBeNull();
    expect(budgetWarning(new Decimal('2.01'), suite, 3, 3)).toMatch(/more than twice/);
    // Three reps of the suite may cost three times as much.
    expect(budgetWarning(new Decimal('5.99'), suite, 9, 3)).toBeNull();
  });
});
