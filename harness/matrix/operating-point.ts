import type { Decimal } from 'decimal.js';
import { clusteredFigure, influence, intervalOf, withInterval, type ClusteredEstimate, type FigureRange } from '../metrics/paired-stats.ts';
import { fixedMixHull, hullSegment, type HullVertex } from './fixed-mix-hull.ts';
import { oraclePicks } from './oracle-choice.ts';
import { pointOfPicks, singleModelPoints, type MatrixPoint, type OutcomeTable } from './outcome-table.ts';

/**
 * A router's operating point on a matrix, judged against the baselines on the same tasks. Every
 * interval is paired (the router and the baseline are differenced task by task) and cluster-robust
 * over the matrix's clusters (paired-stats.ts, Miller 2024); figures that are not plain means are
 * linearised (delta method) into one value per task first.
 */

/** What every operating point of one table is judged against. */
export interface MatrixBaselines {
  table: OutcomeTable;
  /** Each single model's point, in pool order. */
  singles: MatrixPoint[];
  hull: HullVertex[];
  oracle: number[];
  oraclePoint: MatrixPoint;
  /** PGR's ends: the cheapest model (the better on a cost tie) and the best (the cheaper on a rate tie). */
  weak: number;
  strong: number;
}

/** The baselines of `table`. */
export function matrixBaselines(table: OutcomeTable): MatrixBaselines {
  if (table.models.length === 0) throw new RangeError('a matrix needs at least one model in the pool');
  const singles = singleModelPoints(table);
  const idx = singles.map((_, i) => i);
  const weak = [...idx].sort((a, b) => singles[a]!.cost_per_task_usd.cmp(singles[b]!.cost_per_task_usd) || singles[b]!.solved_rate - singles[a]!.solved_rate || a - b)[0]!;
  const strong = [...idx].sort((a, b) => singles[b]!.solved_rate - singles[a]!.solved_rate || singles[a]!.cost_per_task_usd.cmp(singles[b]!.cost_per_task_usd) || a - b)[0]!;
  const oracle = oraclePicks(table);
  return { table, singles, hull: fixedMixHull(singles), oracle, oraclePoint: pointOfPicks(table, oracle), weak, strong };
}

/** The figures of one operating point (rates in [0, 1], differences of rates in pts). */
export interface OperatingFigures {
  cost_per_task_usd: Decimal;
  /** Cost per task as a float with its interval (USD). */
  cost: ClusteredEstimate;
  solved_rate: ClusteredEstimate;
  /** Solved rate minus the hull's at the same cost, in points (+ above, − below). */
  hull_gap_pts: ClusteredEstimate;
  /** Solved rate minus a random router's at this router's own mix of models, in points. */
  vs_random_at_mix_pts: ClusteredEstimate;
  /** Performance gap recovered (RouteLLM): (rate − weak) / (strong − weak). */
  pgr: ClusteredEstimate;
  /** (rate − weak) / (oracle − weak): the share of the oracle's gain over the cheapest model reached. */
  oracle_capture: ClusteredEstimate;
  /** Share of tasks sent to each model, in pool order. */
  mix: number[];
}

const RATE: FigureRange = [0, 1];
const PTS: FigureRange = [-100, 100];

/** The mean of per-task values with its clustered interval. */
function meanOf(values: readonly number[], clusters: readonly string[], confidence: number, scale = 1, range?: FigureRange): ClusteredEstimate {
  return clusteredFigure(
    values.map((v, i) => ({ cluster: clusters[i]!, value: { num: v, den: 1 } })),
    'ratio',
    confidence,
    scale,
    range,
  );
}

/** Σnum / Σden over tasks with its clustered interval; no estimate when Σden is 0. */
function ratioOf(num: readonly number[], den: readonly number[], clusters: readonly string[], confidence: number): ClusteredEstimate {
  return clusteredFigure(
    num.map((n, i) => ({ cluster: clusters[i]!, value: { num: n, den: den[i]! } })),
    'ratio',
    confidence,
  );
}

/**
 * The hull gap of a router linearised per task: with the router's cost C between hull vertices lo and
 * hi (weight λ, slope Δrate/Δcost), g_t = r_t − [(1−λ)·lo_t + λ·hi_t] − slope·(c_t − [(1−λ)·lo.c_t + λ·hi.c_t]).
 * Its mean is exactly rate − hull(C) (the cost term averages to 0 by the choice of λ), and its spread
 * carries the uncertainty of the router's cost as well as of the three rates.
 */
export function hullGapValues(b: MatrixBaselines, picks: readonly number[], cost: number): number[] {
  const { lo, hi, lambda } = hullSegment(b.hull, cost);
  const slope = hi === lo ? 0 : (hi.rate - lo.rate) / (hi.cost - lo.cost);
  const { score, costF } = b.table;
  return picks.map((m, t) => {
    const base = (1 - lambda) * score[t]![lo.model]! + lambda * score[t]![hi.model]!;
    const baseCost = (1 - lambda) * costF[t]![lo.model]! + lambda * costF[t]![hi.model]!;
    return score[t]![m]! - base - slope * (costF[t]![m]! - baseCost);
  });
}

/**
 * Router minus a random router at its own mix p (p_m = share of tasks on m), linearised per task:
 * g_t = r_t − Σ_m p_m·s_m(t) − S_{pick_t} + Σ_m p_m·S_m, so the mix's own sampling noise is counted.
 */
export function randomAtMixValues(b: MatrixBaselines, picks: readonly number[]): { values: number[]; mix: number[] } {
  const n = picks.length;
  const k = b.table.models.length;
  const mix = new Array<number>(k).fill(0);
  // Counted, then divided once: summing 1/n per task can pass 1 (1.0000000000000002), which the report schema refuses.
  for (const m of picks) mix[m]! += 1;
  for (let m = 0; m < k; m++) mix[m] = mix[m]! / n;
  const S = b.singles.map((p) => p.solved_rate);
  const mixRate = mix.reduce((s, p, m) => s + p * S[m]!, 0);
  const values = picks.map((m, t) => {
    const row = b.table.score[t]!;
    const random = mix.reduce((s, p, j) => s + p * row[j]!, 0);
    return row[m]! - random - S[m]! + mixRate;
  });
  return { values, mix };
}

/** Every figure of the operating point that plays `picks[t]` on task t. */
export function operatingFigures(b: MatrixBaselines, picks: readonly number[], confidence = 0.95): OperatingFigures {
  const { table } = b;
  const { clusters, score, costF } = table;
  if (picks.length !== score.length) throw new RangeError(`picks has ${picks.length} entries for ${score.length} tasks`);
  const point = pointOfPicks(table, picks);
  const r = picks.map((m, t) => score[t]![m]!);
  const c = picks.map((m, t) => costF[t]![m]!);
  const w = score.map((row) => row[b.weak]!);
  const s = score.map((row) => row[b.strong]!);
  const o = b.oracle.map((m, t) => score[t]![m]!);
  const rand = randomAtMixValues(b, picks);
  return {
    cost_per_task_usd: point.cost_per_task_usd,
    cost: meanOf(c, clusters, confidence, 1, [0, Infinity]),
    solved_rate: meanOf(r, clusters, confidence, 1, RATE),
    hull_gap_pts: meanOf(hullGapValues(b, picks, point.cost_per_task_usd.toNumber()), clusters, confidence, 100, PTS),
    vs_random_at_mix_pts: meanOf(rand.values, clusters, confidence, 100, PTS),
    pgr: ratioOf(
      r.map((x, t) => x - w[t]!),
      s.map((x, t) => x - w[t]!),
      clusters,
      confidence,
    ),
    oracle_capture: ratioOf(
      r.map((x, t) => x - w[t]!),
      o.map((x, t) => x - w[t]!),
      clusters,
      confidence,
    ),
    mix: rand.mix,
  };
}

/**
 * APGR of a router's curve (RouteLLM's average performance gap recovered, on cost instead of the
 * strong-call share so that it holds for any number of models): the area under PGR against the
 * normalised cost x = (C − C_weak) / (C_strong − C_weak), over x in [0, 1], through the anchors (0, 0)
 * (all on the weak model) and (1, 1) (all on the strong one); points outside [0, 1] are clipped to it.
 * A random mix of the two ends scores 0.5. The interval treats the x positions as fixed and
 * linearises each point's PGR. Null when the ends tie on cost or rate, or the curve is empty.
 */
export function apgr(b: MatrixBaselines, curve: readonly (readonly number[])[], confidence = 0.95): ClusteredEstimate {
  const { clusters, score, costF } = b.table;
  const n = score.length;
  const g = new Set(clusters).size;
  const cw = b.singles[b.weak]!.cost_per_task_usd.toNumber();
  const cs = b.singles[b.strong]!.cost_per_task_usd.toNumber();
  if (curve.length === 0 || !(cs > cw)) return withInterval(null, null, n, g, confidence);
  const w = score.map((row) => row[b.weak]!);
  const pts: { x: number; y: number; infl: number[] }[] = [];
  for (const picks of curve) {
    const f = influence(
      picks.map((m, t) => ({ num: score[t]![m]! - w[t]!, den: score[t]![b.strong]! - w[t]! })),
      'ratio',
    );
    if (!f) return withInterval(null, null, n, g, confidence);
    const cost = picks.reduce((sum, m, t) => sum + costF[t]![m]!, 0) / n;
    pts.push({ x: Math.min(1, Math.max(0, (cost - cw) / (cs - cw))), y: f.estimate, infl: f.influence });
  }
  const zero = new Array<number>(n).fill(0);
  const all = [{ x: 0, y: 0, infl: zero }, ...pts.sort((a, b2) => a.x - b2.x), { x: 1, y: 1, infl: zero }];
  let area = 0;
  const infl = new Array<number>(n).fill(0);
  for (let i = 0; i + 1 < all.length; i++) {
    const a = all[i]!;
    const z = all[i + 1]!;
    const dx = z.x - a.x;
    area += (dx * (a.y + z.y)) / 2;
    for (let t = 0; t < n; t++) infl[t]! += (dx * (a.infl[t]! + z.infl[t]!)) / 2;
  }
  return intervalOf({ estimate: area, influence: infl, clusters: [...clusters], weights: 'equal-clusters' }, n, g, confidence);
}
