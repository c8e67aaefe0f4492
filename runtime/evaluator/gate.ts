/**
 * The hidden check gates the verdict (harness-and-runtime.md §5 as changed by issue 11): for a
 * workload with `evaluate.check`, a rep is solved iff the check passed; the other heuristic signals
 * only order reps inside their band. Solved reps score in [0.5, 1], unsolved ones in [0, 0.49].
 */

/** What became of a rep: the check's verdict, or why there is none. */
export type RepOutcome = 'solved' | 'unsolved' | 'check_error' | 'not_reached';

/** A rep scores as solved work at or above this; below it, it is unsolved (spec §6, §8.3). */
export const SOLVED_SCORE = 0.5;

/** The top of the unsolved band: an unsolved rep scores at most this, leaving a visible gap below 0.5. */
export const UNSOLVED_CEILING = 0.49;

/**
 * The gated score from the check's verdict and the heuristic over every other signal (h in [0,1]):
 * solved → 0.5 + 0.5·h, in [0.5, 1]; not solved → 0.49·h, in [0, 0.49]. Linear in h, so the
 * heuristic's order is kept inside each band.
 */
export function gatedScore(passed: boolean, heuristic: number): number {
  if (!(heuristic >= 0 && heuristic <= 1)) throw new RangeError(`heuristic score must be in [0,1], got ${heuristic}`);
  return passed ? SOLVED_SCORE + (1 - SOLVED_SCORE) * heuristic : UNSOLVED_CEILING * heuristic;
}

/** What the runner knows about a rep's check when the rep is over. */
export interface CheckFacts {
  /** The workload declares `evaluate.check`. */
  hasCheck: boolean;
  /** The rep got to its check: every turn ran (a turn that failed still reaches it), nothing interrupted it. */
  reached: boolean;
  /** The check's result, when it ran at all. */
  check: { passed: boolean; timed_out: boolean } | null;
  /** The check could not be started (sandbox refused, no shell). */
  checkError: string | null;
}

/**
 * The outcome of a rep with a check: solved iff the check ran and passed; a check that timed out or could
 * not start is `check_error`; a rep that never got to its check is `not_reached`. Neither is ever a pass.
 * Null for a workload without a check (its verdict is the heuristic score, see `outcomeFromScore`).
 */
export function checkOutcome(f: CheckFacts): RepOutcome | null {
  if (!f.hasCheck) return null;
  if (!f.reached) return 'not_reached';
  if (f.checkError !== null || f.check === null || f.check.timed_out) return 'check_error';
  return f.check.passed ? 'solved' : 'unsolved';
}

/** The outcome of a rep without a check: solved when its heuristic score is 0.5 or more. */
export function outcomeFromScore(score: number | null): RepOutcome {
  return score !== null && score >= SOLVED_SCORE ? 'solved' : 'unsolved';
}
