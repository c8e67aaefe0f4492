import { incompleteBeta } from '../student-t.ts';

/**
 * The Student-t quantile at level `p` (> 0.5) as a plain bisection of the CDF finds it, as studentTQuantile did before
 * its bracket: the reference its tests hold it to bit for bit. `evaluations` counts the CDF evaluations.
 */
export function plainBisection(p: number, df: number): { q: number; evaluations: number } {
  let evaluations = 0;
  const cdf = (t: number) => {
    evaluations += 1;
    return 1 - 0.5 * incompleteBeta(df / (df + t * t), df / 2, 0.5);
  };
  let lo = 0;
  let hi = 1;
  while (cdf(hi) < p) hi *= 2;
  for (let i = 0; i < 200 && hi - lo > 1e-12 * Math.max(1, hi); i++) {
    const mid = (lo + hi) / 2;
    if (cdf(mid) < p) lo = mid;
    else hi = mid;
  }
  return { q: (lo + hi) / 2, evaluations };
}
