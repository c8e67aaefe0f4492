/** A streaming mean: how many values it holds and their mean. */
export interface RunningMean {
  count: number;
  mean: number;
}

/** The empty mean (no scored samples). */
export const EMPTY_MEAN: RunningMean = Object.freeze({ count: 0, mean: 0 });

/** Welford's update: folds `x` in without revisiting earlier values (pattern-store.md §5.4). */
export function welfordAdd(s: RunningMean, x: number): RunningMean {
  const count = s.count + 1;
  return { count, mean: s.mean + (x - s.mean) / count };
}

/** Exact inverse of `welfordAdd`: takes back a value that was folded in earlier (§10.4 rollback). */
export function welfordRemove(s: RunningMean, x: number): RunningMean {
  if (s.count <= 0) throw new RangeError('cannot remove a value from an empty mean');
  if (s.count === 1) return { count: 0, mean: 0 };
  const count = s.count - 1;
  return { count, mean: s.mean - (x - s.mean) / count };
}

/** Swaps an earlier value for a newer one (a re-evaluated verdict). */
export function welfordReplace(s: RunningMean, old: number, x: number): RunningMean {
  return welfordAdd(welfordRemove(s, old), x);
}
