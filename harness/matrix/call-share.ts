import { seededRandom } from '../../runtime/core/seeded-random.ts';
import { influence, intervalOf, withInterval, type ClusteredEstimate } from '../metrics/paired-stats.ts';
import { hullGapValues, type MatrixBaselines } from './operating-point.ts';

/**
 * RouteLLM's metrics on a two-model matrix, on the strong-call share as RouteLLM defines them: each
 * operating point of a sweep is (x = share of tasks sent to the strong model, y = PGR = (rate − weak) /
 * (strong − weak)); APGR is the area under the curve through (0, 0) and (1, 1) by the trapezoid rule, and
 * CPT(p) the smallest share of strong calls at which the curve reaches PGR p. A random mix of the two
 * scores APGR 0.5. For larger pools, the normalised area between the router's curve and the hull.
 */

/** A point of a call-share curve. */
export interface CurvePoint {
  x: number;
  y: number;
}

/** The area under `pts` through (0, 0) and (1, 1), sorted by x (trapezoid rule). */
export function trapezoidArea(pts: readonly CurvePoint[]): number {
  const all = [{ x: 0, y: 0 }, ...[...pts].sort((a, b) => a.x - b.x), { x: 1, y: 1 }];
  let area = 0;
  for (let i = 0; i + 1 < all.length; i++) area += ((all[i + 1]!.x - all[i]!.x) * (all[i]!.y + all[i + 1]!.y)) / 2;
  return area;
}

/** CPT(level): the smallest strong-call share at which the curve through (0, 0) and (1, 1) reaches PGR `level`. */
export function cpt(pts: readonly CurvePoint[], level: number): number {
  const all = [{ x: 0, y: 0 }, ...[...pts].sort((a, b) => a.x - b.x || a.y - b.y), { x: 1, y: 1 }];
  for (let i = 0; i < all.length; i++) {
    const z = all[i]!;
    if (z.y >= level) {
      if (i === 0) return z.x;
      const a = all[i - 1]!;
      return a.x + ((level - a.y) / (z.y - a.y)) * (z.x - a.x);
    }
  }
  return 1;
}

/** The call-share curve of a sweep: per point the share on b.strong and its PGR (null when strong and weak tie on every task). */
export function callShareCurve(b: MatrixBaselines, curve: readonly (readonly number[])[]): CurvePoint[] | null {
  const { score } = b.table;
  let den = 0;
  for (const row of score) den += row[b.strong]! - row[b.weak]!;
  if (den === 0) return null;
  return curve.map((picks) => {
    let num = 0;
    let strong = 0;
    picks.forEach((m, t) => {
      num += score[t]![m]! - score[t]![b.weak]!;
      if (m === b.strong) strong++;
    });
    return { x: strong / picks.length, y: num / den };
  });
}

/** APGR on call share with its CR2 interval (the x positions held fixed, each point's PGR linearised). */
export function apgrCallShare(b: MatrixBaselines, curve: readonly (readonly number[])[], confidence = 0.95): ClusteredEstimate {
  const { clusters, score } = b.table;
  const n = score.length;
  const g = new Set(clusters).size;
  const pts = callShareCurve(b, curve);
  if (!pts || curve.length === 0) return withInterval(null, null, n, g, confidence);
  const infl = curve.map(
    (picks) =>
      influence(
        picks.map((m, t) => ({ num: score[t]![m]! - score[t]![b.weak]!, den: score[t]![b.strong]! - score[t]![b.weak]! })),
        'ratio',
      )!.influence,
  );
  const order = pts.map((p, i) => ({ ...p, i })).sort((a, c) => a.x - c.x);
  const zero = new Array<number>(n).fill(0);
  const all = [{ x: 0, y: 0, infl: zero }, ...order.map((p) => ({ x: p.x, y: p.y, infl: infl[p.i]! })), { x: 1, y: 1, infl: zero }];
  const { area, total } = trapezoid(all, n);
  return intervalOf({ estimate: area, influence: total, clusters: [...clusters], weights: 'equal-clusters' }, n, g, confidence);
}

/** An estimate with a percentile interval from a cluster bootstrap. */
export interface BootEstimate {
  estimate: number | null;
  ci_low: number | null;
  ci_high: number | null;
  clusters: number;
}

/** CPT(50%) and CPT(80%) on call share with cluster-bootstrap percentile intervals (`reps` resamples of the clusters, seeded). */
export function cptCallShare(b: MatrixBaselines, curve: readonly (readonly number[])[], o: { reps?: number; seed?: number; confidence?: number } = {}): { cpt50: BootEstimate; cpt80: BootEstimate } {
  const { clusters, score } = b.table;
  const ids = new Map<string, number>();
  const gi = clusters.map((c) => {
    let i = ids.get(c);
    if (i === undefined) ids.set(c, (i = ids.size));
    return i;
  });
  const G = ids.size;
  const pts = callShareCurve(b, curve);
  const none: BootEstimate = { estimate: null, ci_low: null, ci_high: null, clusters: G };
  if (!pts || curve.length === 0) return { cpt50: none, cpt80: none };
  // Per cluster: task count, Σ(strong − weak), and per point Σ(r − weak) and strong calls.
  const cnt = new Array<number>(G).fill(0);
  const den = new Array<number>(G).fill(0);
  const num = curve.map(() => new Array<number>(G).fill(0));
  const calls = curve.map(() => new Array<number>(G).fill(0));
  score.forEach((row, t) => {
    const c = gi[t]!;
    cnt[c]! += 1;
    den[c]! += row[b.strong]! - row[b.weak]!;
  });
  curve.forEach((picks, i) =>
    picks.forEach((m, t) => {
      num[i]![gi[t]!]! += score[t]![m]! - score[t]![b.weak]!;
      if (m === b.strong) calls[i]![gi[t]!]! += 1;
    }),
  );
  const reps = o.reps ?? 1000;
  const random = seededRandom(o.seed ?? 0);
  const c50: number[] = [];
  const c80: number[] = [];
  const w = new Array<number>(G).fill(0);
  for (let r = 0; r < reps; r++) {
    w.fill(0);
    for (let j = 0; j < G; j++) w[Math.floor(random() * G)]! += 1;
    let n = 0;
    let d = 0;
    for (let c = 0; c < G; c++) {
      n += w[c]! * cnt[c]!;
      d += w[c]! * den[c]!;
    }
    // A resample in which the strong model gains nothing has no PGR: it is left out.
    if (d <= 0 || n === 0) continue;
    const bp = curve.map((_, i) => {
      let s = 0;
      let x = 0;
      for (let c = 0; c < G; c++) {
        s += w[c]! * num[i]![c]!;
        x += w[c]! * calls[i]![c]!;
      }
      return { x: x / n, y: s / d };
    });
    c50.push(cpt(bp, 0.5));
    c80.push(cpt(bp, 0.8));
  }
  const alpha = (1 - (o.confidence ?? 0.95)) / 2;
  const q = (xs: number[], p: number) => xs[Math.min(xs.length - 1, Math.max(0, Math.floor(p * xs.length)))]!;
  const est = (level: number, xs: number[]): BootEstimate => {
    xs.sort((a, c) => a - c);
    return { estimate: cpt(pts, level), ci_low: xs.length && G >= 2 ? q(xs, alpha) : null, ci_high: xs.length && G >= 2 ? q(xs, 1 - alpha) : null, clusters: G };
  };
  return { cpt50: est(0.5, c50), cpt80: est(0.8, c80) };
}

/**
 * For pools of more than two models: the area between the router's curve and the hull over normalised cost
 * x = (C − C_weak) / (C_strong − C_weak), through gap 0 at both ends, divided by the rate the strong model
 * adds over the weak one: 0 on the hull, positive above it. CR2 interval with the x positions held fixed.
 */
export function hullArea(b: MatrixBaselines, curve: readonly (readonly number[])[], confidence = 0.95): ClusteredEstimate {
  const { clusters, score, costF } = b.table;
  const n = score.length;
  const g = new Set(clusters).size;
  const cw = b.singles[b.weak]!.cost_per_task_usd.toNumber();
  const cs = b.singles[b.strong]!.cost_per_task_usd.toNumber();
  const span = b.singles[b.strong]!.solved_rate - b.singles[b.weak]!.solved_rate;
  if (curve.length === 0 || !(cs > cw) || !(span > 0)) return withInterval(null, null, n, g, confidence);
  const pts = curve.map((picks) => {
    const cost = picks.reduce((s, m, t) => s + costF[t]![m]!, 0) / n;
    const v = hullGapValues(b, picks, cost).map((x) => x / n / span);
    return { x: Math.min(1, Math.max(0, (cost - cw) / (cs - cw))), y: v.reduce((s, x) => s + x, 0), infl: v };
  });
  const zero = new Array<number>(n).fill(0);
  const all = [{ x: 0, y: 0, infl: zero }, ...pts.sort((a, z) => a.x - z.x), { x: 1, y: 0, infl: zero }];
  const { area, total } = trapezoid(all, n);
  const mean = total.reduce((s, x) => s + x, 0) / n;
  return intervalOf({ estimate: area, influence: total.map((x) => x - mean), clusters: [...clusters], weights: 'equal-clusters' }, n, g, confidence);
}

/** The trapezoid area under points sorted by x, and each task's share of it (its influence carried through the same rule). */
function trapezoid(all: readonly { x: number; y: number; infl: readonly number[] }[], n: number): { area: number; total: number[] } {
  let area = 0;
  const total = new Array<number>(n).fill(0);
  for (let i = 0; i + 1 < all.length; i++) {
    const a = all[i]!;
    const z = all[i + 1]!;
    const dx = z.x - a.x;
    area += (dx * (a.y + z.y)) / 2;
    for (let t = 0; t < n; t++) total[t]! += (dx * (a.infl[t]! + z.infl[t]!)) / 2;
  }
  return { area, total };
}
