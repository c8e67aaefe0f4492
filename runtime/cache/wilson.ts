// Wilson score interval for a binomial proportion: the bound the tuner serves on and the report prints.

/** A proportion with its Wilson interval; `p` is null when n = 0. */
export interface WilsonInterval {
  p: number | null;
  lo: number;
  hi: number;
}

/** z for a two-sided 95% interval. */
export const Z95 = 1.959963984540054;
/** z for a one-sided 95% upper bound. */
export const Z95_ONE_SIDED = 1.6448536269514722;

/**
 * Wilson interval of `k` successes in `n` trials at normal quantile `z`. With n = 0 it is [0, 1].
 * Throws a RangeError for k < 0, n < 0, k > n or non-integers: a count that cannot be is a caller bug.
 */
export function wilson(k: number, n: number, z: number = Z95): WilsonInterval {
  if (!Number.isInteger(k) || !Number.isInteger(n) || k < 0 || n < 0 || k > n)
    throw new RangeError(`wilson(${k}, ${n}): need whole counts with 0 <= k <= n`);
  if (n === 0) return { p: null, lo: 0, hi: 1 };
  const p = k / n;
  const z2 = z * z;
  const denom = 1 + z2 / n;
  const centre = (p + z2 / (2 * n)) / denom;
  const half = (z / denom) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  return { p, lo: Math.max(0, centre - half), hi: Math.min(1, centre + half) };
}

/** The one-sided upper confidence bound on an error rate (k errors in n). */
export function wilsonUpper(k: number, n: number, z: number = Z95_ONE_SIDED): number {
  return wilson(k, n, z).hi;
}
