/** Arithmetic mean; null for no values. */
export function mean(xs: readonly number[]): number | null {
  if (xs.length === 0) return null;
  return xs.reduce((a, b) => a + b, 0) / xs.length;
}

/** Sample standard deviation (n − 1); null for fewer than two values (one rep has no spread to report). */
export function sampleStd(xs: readonly number[]): number | null {
  if (xs.length < 2) return null;
  const m = mean(xs)!;
  const ss = xs.reduce((a, x) => a + (x - m) ** 2, 0);
  return Math.sqrt(ss / (xs.length - 1));
}

/** benchmark.md §6.4: a workload is NOISY when its quality std across reps exceeds this. */
export const NOISY_STD = 0.15;
