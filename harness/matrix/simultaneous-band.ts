import { seededRandom } from '../../runtime/core/seeded-random.ts';
import { sampleGamma } from '../../runtime/patterns/expected-gain.ts';
import { clusteredSeCr2 } from '../metrics/paired-stats.ts';

/**
 * A simultaneous band over the points of a sweep: every point's mean with one critical value c such that,
 * under the points' joint CR2 covariance, all of them lie within c standard errors of the truth with
 * probability `confidence` (max-t). The covariance is the CR2 one of the pointwise intervals, point by
 * point pair; c is the `confidence` quantile of max_i |T_i|, T multivariate t on the Bell–McCaffrey df
 * with the points' correlation, simulated from `seed`. A claim about one swept point holds only where
 * its band excludes 0: picking the best-looking point of nine is then accounted for.
 */

/** The band of a sweep: per point its estimate and band ends, and the critical value used. */
export interface SweepBand {
  estimates: number[];
  low: number[];
  high: number[];
  critical: number;
  df: number;
}

/** Standard normal draw (Box–Muller). */
function normal(random: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
}

/** Lower Cholesky factor of a correlation matrix; a tiny ridge keeps a singular one (identical points) usable. */
function cholesky(a: readonly (readonly number[])[]): number[][] {
  const n = a.length;
  const l = a.map(() => new Array<number>(n).fill(0));
  for (let i = 0; i < n; i++)
    for (let j = 0; j <= i; j++) {
      let s = a[i]![j]! + (i === j ? 1e-10 : 0);
      for (let k = 0; k < j; k++) s -= l[i]![k]! * l[j]![k]!;
      l[i]![j] = i === j ? Math.sqrt(Math.max(s, 0)) : l[j]![j]! > 0 ? s / l[j]![j]! : 0;
    }
  return l;
}

/**
 * The band of the means of `values[i]` (one row per point, one value per unit) clustered by `clusters`
 * (scaled by `scale`). Null with fewer than two clusters. Points with no spread get a band of width 0.
 */
export function simultaneousBand(values: readonly (readonly number[])[], clusters: readonly string[], o: { confidence?: number; seed?: number; draws?: number; scale?: number } = {}): SweepBand | null {
  const confidence = o.confidence ?? 0.95;
  const draws = o.draws ?? 4000;
  const scale = o.scale ?? 1;
  const k = values.length;
  if (k === 0) return null;
  const n = clusters.length;
  const ids = new Map<string, number>();
  const g = clusters.map((c) => {
    let i = ids.get(c);
    if (i === undefined) ids.set(c, (i = ids.size));
    return i;
  });
  const G = ids.size;
  if (G < 2) return null;
  const size = new Array<number>(G).fill(0);
  for (const c of g) size[c]! += 1;
  const h = size.map((s) => s / n);
  const estimates = values.map((v) => v.reduce((s, x) => s + x, 0) / n);
  // Cluster sums of each point's influence, centred: E[i][c].
  const E = values.map((v, i) => {
    const e = new Array<number>(G).fill(0);
    v.forEach((x, t) => (e[g[t]!]! += (x - estimates[i]!) / n));
    const mean = e.reduce((s, x) => s + x, 0) / G;
    return e.map((x) => x - mean);
  });
  const cov = E.map((a) => E.map((b) => a.reduce((s, x, c) => s + (x * b[c]!) / (1 - h[c]!), 0)));
  const se = cov.map((row, i) => Math.sqrt(Math.max(row[i]!, 0)));
  // The Bell–McCaffrey df depends on the leverages only, so it is one figure for every point.
  const df = clusteredSeCr2(values[0]!.map((x) => x), clusters, new Array<number>(n).fill(1))?.df ?? G - 1;
  const live = se.map((s, i) => (s > 0 ? i : -1)).filter((i) => i >= 0);
  let critical = 0;
  if (live.length) {
    const corr = live.map((i) => live.map((j) => cov[i]![j]! / (se[i]! * se[j]!)));
    const l = cholesky(corr);
    const random = seededRandom(o.seed ?? 0);
    const maxima: number[] = [];
    for (let d = 0; d < draws; d++) {
      const z = live.map(() => normal(random));
      // Multivariate t: one chi-square per draw, shared by every point.
      const w = Math.sqrt((2 * sampleGamma(df / 2, random)) / df);
      let m = 0;
      for (let i = 0; i < live.length; i++) {
        let x = 0;
        for (let j = 0; j <= i; j++) x += l[i]![j]! * z[j]!;
        m = Math.max(m, Math.abs(x / w));
      }
      maxima.push(m);
    }
    maxima.sort((a, b) => a - b);
    critical = maxima[Math.min(draws - 1, Math.ceil(confidence * draws) - 1)]!;
  }
  return {
    estimates: estimates.map((e) => e * scale),
    low: estimates.map((e, i) => (e - critical * se[i]!) * scale),
    high: estimates.map((e, i) => (e + critical * se[i]!) * scale),
    critical,
    df,
  };
}
