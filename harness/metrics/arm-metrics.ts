import type { Decimal } from 'decimal.js';

/**
 * Savings of the routed arm against the measured strong arm, in percent: (cost_B − cost_C) / cost_B.
 * Unlike re-priced savings this does not assume the strong model would have used the same tokens.
 */
export function savingsVsMeasuredPct(strongCost: Decimal, routedCost: Decimal): Decimal | null {
  return savingsPctOf(strongCost, routedCost);
}

/** (reference − actual) / reference × 100; null when the reference cost is zero. */
export function savingsPctOf(reference: Decimal, actual: Decimal): Decimal | null {
  if (reference.isZero()) return null;
  return reference.minus(actual).div(reference).times(100);
}

/**
 * Performance gap recovered: (q_C − q_A) / (q_B − q_A). 1 means the router is as good as the strong
 * arm, 0 as good as the cheap arm. Null when the arms tie (no gap to recover) or a quality is missing.
 */
export function performanceGapRecovered(cheap: number | null, strong: number | null, routed: number | null): number | null {
  if (cheap === null || strong === null || routed === null) return null;
  const gap = strong - cheap;
  if (Math.abs(gap) < 1e-12) return null;
  return (routed - cheap) / gap;
}

function choose(n: number, k: number): number {
  if (k < 0 || k > n) return 0;
  let r = 1;
  for (let i = 1; i <= k; i++) r = (r * (n - k + i)) / i;
  return r;
}

/** Unbiased pass@k from n reps of which c passed: P(at least one of k draws passes). */
export function passAtK(n: number, c: number, k: number): number {
  if (k < 1 || k > n || c < 0 || c > n) throw new RangeError(`pass@k needs 1 <= k <= n and 0 <= c <= n (n=${n}, c=${c}, k=${k})`);
  return 1 - choose(n - c, k) / choose(n, k);
}

/** pass^k from n reps of which c passed: P(all k draws pass) — the consistency measure. */
export function passHatK(n: number, c: number, k: number): number {
  if (k < 1 || k > n || c < 0 || c > n) throw new RangeError(`pass^k needs 1 <= k <= n and 0 <= c <= n (n=${n}, c=${c}, k=${k})`);
  return choose(c, k) / choose(n, k);
}
