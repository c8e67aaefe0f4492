import { studentTQuantile } from './student-t.ts';

/**
 * Paired statistics with standard errors clustered by workload (Miller 2024, "Adding Error Bars to
 * Evals", arXiv 2411.00640). Every figure is a ratio of sums over units, Σnum / Σden (a mean has den 1
 * per unit, a total is Σnum); each unit's influence on the figure is summed per cluster (E_g). The variance
 * is the CR2 (Bell–McCaffrey) sandwich of the intercept model the figure is: Var = Σ_g E_g² / (1 − h_g),
 * with h_g the cluster's leverage (its share of Σden), and the interval uses t on the Bell–McCaffrey
 * degrees of freedom (G − 1 when the clusters weigh the same, fewer when a few clusters dominate). A
 * difference between two arms on the same units subtracts the influences unit by unit, so what the arms
 * share cancels. A figure compared with itself has zero influence everywhere: a [0, 0] interval.
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
  /** Degrees of freedom of the interval's t quantile (Bell–McCaffrey); null without an interval. */
  df?: number | null;
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

/** The CR2 standard error of a figure and its Bell–McCaffrey degrees of freedom; null with fewer than 2 clusters. */
export interface ClusteredSe {
  se: number;
  df: number;
}

/**
 * CR2 clustered standard error of a figure whose per-unit influences are `infl`. `weights` (one per unit;
 * default every cluster alike, as for a total) give each cluster's leverage h_g = Σ_g w / Σ w in the intercept model (a ratio's den); the
 * cluster sums are centred first, so a total (whose influences do not sum to 0) is handled alike.
 * Var = Σ_g (E_g − Ē)² / (1 − h_g) and df = (tr M)² / tr(M²), M_gh = a_g a_h (h_g δ_gh − h_g h_h),
 * a_g = (1 − h_g)^(−1/2): Bell and McCaffrey (2002) for an intercept-only model with a working
 * independence covariance. With equal leverages 1/G this is G/(G − 1) · Σ (E_g − Ē)² on G − 1 df.
 */
export function clusteredSeCr2(infl: readonly number[], clusters: readonly string[], weights: readonly number[] | 'equal-clusters' = 'equal-clusters'): ClusteredSe | null {
  const sums = new Map<string, { e: number; w: number }>();
  infl.forEach((e, i) => {
    const c = sums.get(clusters[i]!) ?? { e: 0, w: 0 };
    c.e += e;
    c.w += weights === 'equal-clusters' ? 0 : weights[i]!;
    sums.set(clusters[i]!, c);
  });
  const g = sums.size;
  if (g < 2) return null;
  const cells = [...sums.values()];
  const totalW = cells.reduce((s, c) => s + c.w, 0);
  // Zero or negative weights (a ratio whose den sums to 0 in some cluster) fall back to equal leverage.
  const h = cells.map((c) => (weights !== 'equal-clusters' && totalW > 0 && c.w >= 0 ? c.w / totalW : 1 / g));
  if (h.some((x) => x >= 1)) return null;
  const mean = cells.reduce((s, c) => s + c.e, 0) / g;
  const variance = cells.reduce((s, c, i) => s + (c.e - mean) ** 2 / (1 - h[i]!), 0);
  const a = h.map((x) => 1 / Math.sqrt(1 - x));
  let trace = 0;
  let frob = 0;
  for (let i = 0; i < g; i++)
    for (let j = 0; j < g; j++) {
      const m = a[i]! * a[j]! * ((i === j ? h[i]! : 0) - h[i]! * h[j]!);
      if (i === j) trace += m;
      frob += m * m;
    }
  return { se: Math.sqrt(variance), df: frob > 0 ? (trace * trace) / frob : g - 1 };
}

/** Clustered standard error of a figure whose per-unit influences are `infl` (CR2, clusters weighted alike); null with fewer than 2 clusters. */
export function clusteredSe(infl: readonly number[], clusters: readonly string[]): number | null {
  return clusteredSeCr2(infl, clusters)?.se ?? null;
}

// −0 (a zero scaled by a negative factor) prints as "-0"; a figure of no change is plain 0.
const plain = (x: number): number => (x === 0 ? 0 : x);

/** Where a figure can lie (a rate in [0, 1], a difference of rates in [−1, 1]); interval bounds are clipped to it. */
export type FigureRange = readonly [number, number];

/** estimate ± t_{df, (1+confidence)/2} · se (df default G − 1), clipped to `range`; no interval without a standard error. */
export function withInterval(estimate: number | null, se: number | null, units: number, clusters: number, confidence: number, range: FigureRange = [-Infinity, Infinity], df: number = clusters - 1): ClusteredEstimate {
  const e = estimate === null ? null : plain(estimate);
  if (e === null || se === null || clusters < 2 || !(df > 0)) return { estimate: e, se, df: null, ci_low: null, ci_high: null, units, clusters };
  const half = studentTQuantile((1 + confidence) / 2, df) * se;
  return { estimate: e, se, df, ci_low: plain(Math.max(range[0], e - half)), ci_high: plain(Math.min(range[1], e + half)), units, clusters };
}

/** `withInterval` from a CR2 standard error (null: no interval). */
function fromCr2(estimate: number, v: ClusteredSe | null, units: number, clusters: number, confidence: number, range?: FigureRange): ClusteredEstimate {
  return withInterval(estimate, v?.se ?? null, units, clusters, confidence, range, v?.df ?? clusters - 1);
}

// A ratio's leverage weights are its denominators; a total is a sum of cluster totals, each weighing the same.
const weightsOf = (values: readonly UnitValue[], kind: FigureKind): number[] | 'equal-clusters' => (kind === 'ratio' ? values.map((v) => v.den) : 'equal-clusters');

/** A figure of one run and what its interval needs: each unit's influence, cluster and leverage weight. */
export interface FigureParts {
  estimate: number;
  influence: number[];
  clusters: string[];
  weights: number[] | 'equal-clusters';
}

/** The interval of a figure from its parts (CR2, Bell–McCaffrey df). */
export function intervalOf(parts: FigureParts | null, units: number, clusters: number, confidence: number, range?: FigureRange): ClusteredEstimate {
  if (!parts) return withInterval(null, null, units, clusters, confidence);
  return fromCr2(parts.estimate, clusteredSeCr2(parts.influence, parts.clusters, parts.weights), units, clusters, confidence, range);
}

/** The parts of one arm's figure, times `scale`; null when a ratio's denominator sums to zero. */
export function figureParts(units: readonly { cluster: string; value: UnitValue }[], kind: FigureKind, scale = 1): FigureParts | null {
  const values = units.map((u) => u.value);
  const f = influence(values, kind);
  if (!f) return null;
  return { estimate: f.estimate * scale, influence: f.influence.map((e) => e * scale), clusters: units.map((u) => u.cluster), weights: weightsOf(values, kind) };
}

/** The parts of figure(B) − figure(A) on the same units, times `scale`: the influences differenced unit by unit. */
export function pairedDifferenceParts(units: readonly PairedUnit[], kind: FigureKind, scale = 1): FigureParts | null {
  const fa = influence(
    units.map((u) => u.a),
    kind,
  );
  const fb = influence(
    units.map((u) => u.b),
    kind,
  );
  if (!fa || !fb) return null;
  return {
    estimate: (fb.estimate - fa.estimate) * scale,
    influence: fb.influence.map((e, i) => (e - fa.influence[i]!) * scale),
    clusters: units.map((u) => u.cluster),
    weights: pairedWeights(units, kind),
  };
}

/** The parts of B's savings against A in percent, 100 · (1 − Σcost_B / Σcost_A); costs in `num`. */
export function pairedSavingsParts(units: readonly PairedUnit[]): FigureParts | null {
  const f = influence(
    units.map((u) => ({ num: u.b.num, den: u.a.num })),
    'ratio',
  );
  if (!f) return null;
  return { estimate: 100 * (1 - f.estimate), influence: f.influence.map((e) => -100 * e), clusters: units.map((u) => u.cluster), weights: units.map((u) => u.a.num) };
}

const clusterCount = (units: readonly { cluster: string }[]) => new Set(units.map((u) => u.cluster)).size;

/** A figure of one arm (e.g. a solved rate) with its clustered interval; `scale` multiplies it (100 for percents). */
export function clusteredFigure(units: readonly { cluster: string; value: UnitValue }[], kind: FigureKind, confidence: number, scale = 1, range?: FigureRange): ClusteredEstimate {
  return intervalOf(figureParts(units, kind, scale), units.length, clusterCount(units), confidence, range);
}

/** figure(B) − figure(A) on the same units, paired: the influences are differenced unit by unit. */
export function pairedDifference(units: readonly PairedUnit[], kind: FigureKind, confidence: number, scale = 1, range?: FigureRange): ClusteredEstimate {
  return intervalOf(pairedDifferenceParts(units, kind, scale), units.length, clusterCount(units), confidence, range);
}

// Each unit's leverage weight in a paired ratio: its share of each arm's Σden, averaged over the arms.
function pairedWeights(units: readonly PairedUnit[], kind: FigureKind): number[] | 'equal-clusters' {
  if (kind === 'total') return 'equal-clusters';
  const da = units.reduce((s, u) => s + u.a.den, 0);
  const db = units.reduce((s, u) => s + u.b.den, 0);
  if (da <= 0 || db <= 0) return 'equal-clusters';
  return units.map((u) => u.a.den / da + u.b.den / db);
}

/**
 * Savings of arm B against arm A on the same units, in percent: 100 · (1 − Σcost_B / Σcost_A), with the
 * ratio's clustered interval. `a`/`b` of each unit carry the costs in `num` (den is ignored).
 */
export function pairedSavingsPct(units: readonly PairedUnit[], confidence: number): ClusteredEstimate {
  // Nothing can save more than everything.
  return intervalOf(pairedSavingsParts(units), units.length, clusterCount(units), confidence, [-Infinity, 100]);
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
  const sa = clusteredSeCr2(fa.influence, clusters, weightsOf(units.map((u) => u.a), kind));
  const sb = clusteredSeCr2(fb.influence, clusters, weightsOf(units.map((u) => u.b), kind));
  const se = sa === null || sb === null ? null : Math.sqrt(sa.se * sa.se + sb.se * sb.se);
  return withInterval(fb.estimate - fa.estimate, se, units.length, g, confidence, undefined, sa && sb ? Math.min(sa.df, sb.df) : g - 1);
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
