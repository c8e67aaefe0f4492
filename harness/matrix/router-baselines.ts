import { assignFolds, type FoldSetting } from './matrix-folds.ts';
import type { OutcomeTable } from './outcome-table.ts';
import { chooseKnob, singlePoints, subTable, type KnobPoint, type RoutingTarget } from './routing-target.ts';

/**
 * Baselines a router must beat, fitted on the same training tasks and meeting the same target:
 * - the per-cluster lookup: for each training cluster, the model with the best training gain per dollar
 *   at a threshold τ (the argmax of rate − τ·cost among the pool), unseen clusters the store-wide choice;
 *   τ is chosen inside the training tasks by inner folds, as the router's knob is;
 * - the cost-only rule: the strong model for the shortest prompts (a prompt's price grows with its
 *   length), the cheap one for the rest; the share sent to the strong model is the rule's knob. It reads
 *   no outcome per prompt; the training outcomes only set its share to meet the target.
 */

/** Per-cluster and store-wide mean score and cost of each model over `rows`. */
interface ClusterStats {
  byCluster: Map<string, KnobPoint[]>;
  all: KnobPoint[];
}

function statsOf(table: OutcomeTable, rows: readonly number[]): ClusterStats {
  const k = table.models.length;
  const acc = new Map<string, { n: number; rate: number[]; cost: number[] }>();
  const all = { n: 0, rate: new Array<number>(k).fill(0), cost: new Array<number>(k).fill(0) };
  for (const t of rows) {
    const c = table.clusters[t]!;
    let a = acc.get(c);
    if (!a) acc.set(c, (a = { n: 0, rate: new Array<number>(k).fill(0), cost: new Array<number>(k).fill(0) }));
    for (const x of [a, all]) {
      x.n++;
      for (let m = 0; m < k; m++) {
        x.rate[m]! += table.score[t]![m]!;
        x.cost[m]! += table.costF[t]![m]!;
      }
    }
  }
  const pts = (x: { n: number; rate: number[]; cost: number[] }): KnobPoint[] => x.rate.map((r, m) => ({ rate: r / x.n, cost: x.cost[m]! / x.n }));
  return { byCluster: new Map([...acc].map(([c, x]) => [c, pts(x)])), all: pts(all) };
}

/** The model with the best rate − τ·cost (the cheaper, then the first, on a tie); τ = ∞ is the cheapest. */
function argUtility(points: readonly KnobPoint[], tau: number): number {
  let best = 0;
  const u = (p: KnobPoint) => (tau === Infinity ? -p.cost : p.rate - tau * p.cost);
  for (let m = 1; m < points.length; m++) {
    const d = u(points[m]!) - u(points[best]!);
    if (d > 1e-15 || (Math.abs(d) <= 1e-15 && points[m]!.cost < points[best]!.cost)) best = m;
  }
  return best;
}

/** The thresholds worth trying: 0, ∞ and the midpoints between the clusters' gain-per-dollar breakpoints (at most `max`). */
export function tauGrid(stats: ClusterStats, max = 64): number[] {
  const br = new Set<number>();
  for (const pts of [...stats.byCluster.values(), stats.all])
    for (const a of pts)
      for (const b of pts)
        if (b.cost > a.cost && b.rate > a.rate) br.add((b.rate - a.rate) / (b.cost - a.cost));
  let xs = [...br].sort((a, b) => a - b);
  if (xs.length > max) xs = Array.from({ length: max }, (_, i) => xs[Math.round((i * (xs.length - 1)) / (max - 1))]!);
  const mids = xs.slice(1).map((x, i) => (x + xs[i]!) / 2);
  return [0, ...(xs.length ? [xs[0]! / 2] : []), ...mids, ...(xs.length ? [xs.at(-1)! * 2] : []), Infinity];
}

/** The lookup's pick for each of `rows`, fitted on `stats` at threshold τ. */
function lookupAt(table: OutcomeTable, stats: ClusterStats, rows: readonly number[], tau: number): number[] {
  const memo = new Map<string, number>();
  const global = argUtility(stats.all, tau);
  return rows.map((t) => {
    const c = table.clusters[t]!;
    let m = memo.get(c);
    if (m === undefined) {
      const pts = stats.byCluster.get(c);
      memo.set(c, (m = pts ? argUtility(pts, tau) : global));
    }
    return m;
  });
}

/** The validated point of `picks` over `rows`. */
function pointOf(table: OutcomeTable, rows: readonly number[], picks: readonly number[]): KnobPoint {
  let rate = 0;
  let cost = 0;
  rows.forEach((t, j) => {
    rate += table.score[t]![picks[j]!]!;
    cost += table.costF[t]![picks[j]!]!;
  });
  return { rate: rate / rows.length, cost: cost / rows.length };
}

/** How a baseline is fitted inside a training set: inner folds dealt as the outer ones. */
export interface InnerPlan {
  k: number;
  setting: FoldSetting;
  seed: number;
}

/**
 * The per-cluster lookup fitted on `train` and applied to `test`: τ chosen by inner folds over `train` to meet
 * `target`, then the lookup of all of `train` at that τ. Returns the picks of `test` (in its order) and τ.
 */
export function lookupPicks(table: OutcomeTable, train: readonly number[], test: readonly number[], target: RoutingTarget, inner: InnerPlan): { picks: number[]; tau: number } {
  const full = statsOf(table, train);
  const grid = tauGrid(full);
  const folds = inner.setting === 'clusters' && new Set(train.map((t) => table.clusters[t]!)).size < inner.k ? null : assignFolds(
    train.map((t) => table.clusters[t]!),
    inner.k,
    inner.setting,
    inner.seed,
  );
  const picksAt = grid.map(() => new Array<number>(train.length).fill(-1));
  if (folds)
    for (let j = 0; j < inner.k; j++) {
      const iTrain = train.filter((_, x) => folds[x] !== j);
      const at = train.flatMap((_, x) => (folds[x] === j ? [x] : []));
      if (at.length === 0 || iTrain.length === 0) continue;
      const st = statsOf(table, iTrain);
      grid.forEach((tau, g) => {
        const p = lookupAt(
          table,
          st,
          at.map((x) => train[x]!),
          tau,
        );
        at.forEach((x, y) => (picksAt[g]![x] = p[y]!));
      });
    }
  // Without inner folds (too few clusters to leave out) τ is judged in sample on the training tasks.
  grid.forEach((tau, g) => {
    if (picksAt[g]!.includes(-1)) picksAt[g] = lookupAt(table, full, train, tau);
  });
  const points = picksAt.map((p) => pointOf(table, train, p));
  const g = chooseKnob(points, singlePoints(subTable(table, train)), target);
  return { picks: lookupAt(table, full, test, grid[g]!), tau: grid[g]! };
}

/** The cheapest and the best model of `singles` (the cost-only rule's two ends). */
function ends(singles: readonly KnobPoint[]): { weak: number; strong: number } {
  const idx = singles.map((_, i) => i);
  const weak = [...idx].sort((a, b) => singles[a]!.cost - singles[b]!.cost || singles[b]!.rate - singles[a]!.rate || a - b)[0]!;
  const strong = [...idx].sort((a, b) => singles[b]!.rate - singles[a]!.rate || singles[a]!.cost - singles[b]!.cost || a - b)[0]!;
  return { weak, strong };
}

/** The shares of tasks the cost-only rule may send to the strong model. */
export const COST_ONLY_SHARES: readonly number[] = Array.from({ length: 21 }, (_, i) => i / 20);

/**
 * The cost-only rule fitted on `train` and applied to `test`: the strong model for prompts shorter than the
 * length threshold at share s of the training prompts, the cheap one otherwise; s is the share whose
 * training point meets `target`. `chars[t]` is task t's prompt length.
 */
export function costOnlyPicks(table: OutcomeTable, chars: readonly number[], train: readonly number[], test: readonly number[], target: RoutingTarget): { picks: number[]; share: number } {
  const singles = singlePoints(subTable(table, train));
  const { weak, strong } = ends(singles);
  const sorted = train.map((t) => chars[t]!).sort((a, b) => a - b);
  const threshold = (s: number) => {
    const count = Math.round(s * sorted.length);
    return count >= sorted.length ? Infinity : sorted[count]!;
  };
  const rule = (rows: readonly number[], s: number) => {
    const l = threshold(s);
    return rows.map((t) => (chars[t]! < l ? strong : weak));
  };
  const points = COST_ONLY_SHARES.map((s) => pointOf(table, train, rule(train, s)));
  const i = chooseKnob(points, singles, target);
  return { picks: rule(test, COST_ONLY_SHARES[i]!), share: COST_ONLY_SHARES[i]! };
}

/** A baseline over a whole cross-fit: each outer fold's test tasks routed by the baseline fitted on the others. */
export function crossFitBaseline(n: number, folds: readonly number[], fit: (train: number[], test: number[], fold: number) => number[]): number[] {
  const picks = new Array<number>(n).fill(-1);
  const k = Math.max(...folds) + 1;
  for (let f = 0; f < k; f++) {
    const test = folds.flatMap((x, t) => (x === f ? [t] : []));
    const train = folds.flatMap((x, t) => (x === f ? [] : [t]));
    if (test.length === 0 || train.length === 0) continue;
    fit(train, test, f).forEach((m, j) => (picks[test[j]!] = m));
  }
  return picks;
}
