import type { RepOutcome } from '../../runtime/evaluator/index.ts';

/** Reps by outcome (the report's `outcomes`). */
export interface OutcomeCounts {
  solved: number;
  unsolved: number;
  check_error: number;
  not_reached: number;
}

/** Counts reps by outcome. */
export function countOutcomes(outcomes: readonly RepOutcome[]): OutcomeCounts {
  const c: OutcomeCounts = { solved: 0, unsolved: 0, check_error: 0, not_reached: 0 };
  for (const o of outcomes) c[o] += 1;
  return c;
}

/** Solved reps / reps, a fraction; null for no reps. */
export function solvedRate(outcomes: readonly RepOutcome[]): number | null {
  return outcomes.length === 0 ? null : outcomes.filter((o) => o === 'solved').length / outcomes.length;
}
