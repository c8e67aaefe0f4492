import { studentTQuantile } from './student-t.ts';

/**
 * Paired statistics with standard errors clustered by workload (Miller 2024, "Adding Error Bars to
 * Evals", arXiv 2411.00640). Every figure is a ratio of sums over units, Σnum / Σden (a mean has den 1
 * per unit, a total is Σnum); its standard error comes from the delta method: each unit's influence on the
 * figure is summed per cluster and Var = G/(G−1) · Σ_g (E_g − Ē)². A difference between two arms measured
 * on the same units subtracts the influences unit by unit, so what the arms share cancels; the interval
 * is estimate ± t_{G−1} · SE. A figure compared with itself has zero influence everywhere: a [0, 0] interval.
 */

/** One unit's contribution to a ratio-of-sums figure. */
export interface UnitValue {
  num: number;
  den: number;
}

/** A unit measured in both arms, keyed by its cluster (the workload). */
export interface PairedUnit {
  cluster: string;
  a: UnitValue;
  b: UnitValue;
}

/** An estimate with its clustered standard error and interval; the bounds are null when there is no interval. */
export interface ClusteredEstimate {
  estimate: number | null;
  se: number | null;
  ci_low: number | null;
  ci_high: number | null;
  units: number;
  clusters: number;
}

/** What a figure is: Σnum / Σden ("ratio") or Σnum ("total"). */
export type FigureKind = 'ratio' | 'total';

/** The figure of `values` and each unit's influence on it; null when a ratio's denominator sums to zero. */
export function influence(values: readonly UnitValue[], kind: FigureKind): { estimate: number; influence: number[] } | null {
  const num = values.reduce((s, v) => s + v.num, 0);
  if (kind === 'total') return { estimate: num, influence: values.map((v) => v.num) };
  const den = values.reduce((s, v) => s + v.den, 0);
  if (den === 0) return null;
  const r = num / den;
  return { estimate: r, influence: values.map((v) => (v.num - r * v.den) / den) };
}

/** Clustered standard error of a figure whose per-unit influences are `infl`; null with fewer than 2 clusters. */
export function clusteredSe(infl: readonly number[], clusters: readonly string[]): number | null {
  const sums = new Map<string, number>();
  infl.forEach((e, i) => sums.set(clusters[i]!, (sums.get(clusters[i]!) ?? 0) + e));
  const g = sums.size;
  if (g < 2) return null;
  const totals = [...sums.values()];
  const mean = totals.reduce((s, x) => s + x, 0) / g;
  const ss = totals.reduce((s, x) => s + (x - mean) ** 2, 0);
  return Math.sqrt((g / (g - 1)) * ss);
}

// −0 (a zero scaled by a negative factor) prints as "-0"; a figure of no change is plain 0.
const plain = (x: number): number => (x === 0 ? 0 : x);

/** Where a figure can lie (a rate in [0, 1], a difference of rates in [−1, 1]); interval bounds are clipped to it. */
export type FigureRange = readonly [number, number];

/** estimate ± t_{G−1, (1+confidence)/2} · se, clipped to `range`; no interval without a standard error. */
export function withInterval(estimate: number | null, se: number | null, units: number, clusters: number, confidence: number, range: FigureRange = [-Infinity, Infinity]): ClusteredEstimate {
  const e = estimate === null ? null : plain(estimate);
  if (e === null || se === null || clusters < 2) return { estimate: e, se, ci_low: null, ci_high: null, units, clusters };
  const half = studentTQuantile((1 + confidence) / 2, clusters - 1) * se;
  return { estimate: e, se, ci_low: plain(Math.max(range[0], e - half)), ci_high: plain(Math.min(range[1], e + half)), units, clusters };
}

/** A figure of one arm (e.g. a solved rate) with its clustered interval; `scale` multiplies it (100 for percents). */
export function clusteredFigure(units: readonly { cluster: string; value: UnitValue }[], kind: FigureKind, confidence: number, scale = 1, range?: FigureRange): ClusteredEstimate {
  const clusters = units.map((u) => u.cluster);
  const g = new Set(clusters).size;
  const f = influence(
    units.map((u) => u.value),
    kind,
  );
  if (!f) return withInterval(null, null, units.length, g, confidence);
  const se = clusteredSe(
    f.influence.map((e) => e * scale),
    clusters,
  );
  return withInterval(f.estimate * scale, se, units.length, g, confidence, range);
}

/** figure(B) − figure(A) on the same units, paired: the influences are differenced unit by unit. */
export function pairedDifference(units: readonly PairedUnit[], kind: FigureKind, confidence: number, scale = 1, range?: FigureRange): ClusteredEstimate {
  const clusters = units.map((u) => u.cluster);
  const g = new Set(clusters).size;
  const fa = influence(
    units.map((u) => u.a),
    kind,
  );
  const fb = influence(
    units.map((u) => u.b),
    kind,
  );
  if (!fa || !fb) return withInterval(null, null, units.length, g, confidence);
  const se = clusteredSe(
    fb.influence.map((e, i) => (e - fa.influence[i]!) * scale),
    clusters,
  );
  return withInterval((fb.estimate - fa.estimate) * scale, se, units.length, g, confidence, range);
}

/**
 * Savings of arm B against arm A on the same units, in percent: 100 · (1 − Σcost_B / Σcost_A), with the
 * ratio's clustered interval. `a`/`b` of each unit carry the costs in `num` (den is ignored).
 */
export function pairedSavingsPct(units: readonly PairedUnit[], confidence: number): ClusteredEstimate {
  const clusters = units.map((u) => u.cluster);
  const g = new Set(clusters).size;
  const f = influence(
    units.map((u) => ({ num: u.b.num, den: u.a.num })),
    'ratio',
  );
  if (!f) return withInterval(null, null, units.length, g, confidence);
  const se = clusteredSe(
    f.influence.map((e) => -100 * e),
    clusters,
  );
  // Nothing can save more than everything.
  return withInterval(100 * (1 - f.estimate), se, units.length, g, confidence, [-Infinity, 100]);
}

/**
 * The unpaired interval of figure(B) − figure(A): each arm's clustered variance added as if the arms were
 * independent. Only for comparison with the paired interval (the two arms share units, so this overstates).
 */
export function unpairedDifference(units: readonly PairedUnit[], kind: FigureKind, confidence: number): ClusteredEstimate {
  const clusters = units.map((u) => u.cluster);
  const g = new Set(clusters).size;
  const fa = influence(
    units.map((u) => u.a),
    kind,
  );
  const fb = influence(
    units.map((u) => u.b),
    kind,
  );
  if (!fa || !fb) return withInterval(null, null, units.length, g, confidence);
  const sa = clusteredSe(fa.influence, clusters);
  const sb = clusteredSe(fb.influence, clusters);
  const se = sa === null || sb === null ? null : Math.sqrt(sa * sa + sb * sb);
  return withInterval(fb.estimate - fa.estimate, se, units.length, g, confidence);
}

/** Pearson correlation of the two arms' per-unit values (num / den per unit); null when either arm is constant or there are fewer than 2 units. */
export function unitCorrelation(units: readonly PairedUnit[]): number | null {
  const xs: number[] = [];
  const ys: number[] = [];
  for (const u of units) {
    if (u.a.den === 0 || u.b.den === 0) continue;
    xs.push(u.a.num / u.a.den);
    ys.push(u.b.num / u.b.den);
  }
  const n = xs.length;
  if (n < 2) return null;
  const mx = xs.reduce((s, x) => s + x, 0) / n;
  const my = ys.reduce((s, y) => s + y, 0) / n;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < n; i++) {
    sxy += (xs[i]! - mx) * (ys[i]! - my);
    sxx += (xs[i]! - mx) ** 2;
    syy += (ys[i]! - my) ** 2;
  }
  if (sxx === 0 || syy === 0) return null;
  return Math.max(-1, Math.min(1, sxy / Math.sqrt(sxx * syy)));
}
