import type { MatrixPoint } from './outcome-table.ts';

/** A vertex of the hull: a single model at its cost per task and solved rate. */
export interface HullVertex {
  model: number;
  cost: number;
  rate: number;
}

/**
 * The hull of fixed mixes (RouterBench's non-decreasing convex hull): the best solved rate any random
 * mix of single models reaches at each cost per task. A mix's point is the weighted average of its
 * models' points, so the frontier is the upper concave hull of the single models, cut where it stops
 * rising (a dearer model that solves no more is never worth mixing in). Vertices by increasing cost;
 * the first is the cheapest model (the better one on a cost tie).
 */
export function fixedMixHull(points: readonly MatrixPoint[]): HullVertex[] {
  const pts = points
    .map((p, model) => ({ model, cost: p.cost_per_task_usd.toNumber(), rate: p.solved_rate }))
    .sort((a, b) => a.cost - b.cost || b.rate - a.rate || a.model - b.model);
  // Keep only points that solve strictly more than every cheaper one.
  const rising: HullVertex[] = [];
  for (const p of pts) if (rising.length === 0 || p.rate > rising.at(-1)!.rate) rising.push(p);
  // Upper hull (monotone chain): drop a middle vertex that lies on or below the chord of its neighbours.
  const hull: HullVertex[] = [];
  for (const p of rising) {
    while (hull.length >= 2) {
      const a = hull.at(-2)!;
      const b = hull.at(-1)!;
      if ((b.rate - a.rate) * (p.cost - a.cost) <= (p.rate - a.rate) * (b.cost - a.cost)) hull.pop();
      else break;
    }
    hull.push(p);
  }
  return hull;
}

/**
 * Where cost `c` falls on the hull: the two vertices it lies between and the dear one's weight λ
 * (value = (1 − λ)·lo + λ·hi). Below the cheapest vertex the hull is held flat at it, above the last
 * flat at it: no mix is cheaper than the cheapest model, and spending more than the best model buys
 * nothing; holding it flat on the left is generous to the hull, so a router is never flattered there.
 */
export function hullSegment(hull: readonly HullVertex[], c: number): { lo: HullVertex; hi: HullVertex; lambda: number } {
  if (hull.length === 0) throw new RangeError('the hull of an empty model pool has no value');
  const first = hull[0]!;
  const last = hull.at(-1)!;
  if (c <= first.cost) return { lo: first, hi: first, lambda: 0 };
  if (c >= last.cost) return { lo: last, hi: last, lambda: 0 };
  let i = 1;
  while (hull[i]!.cost < c) i++;
  const lo = hull[i - 1]!;
  const hi = hull[i]!;
  return { lo, hi, lambda: (c - lo.cost) / (hi.cost - lo.cost) };
}

/** The hull's solved rate at cost per task `c` (see hullSegment for the ends). */
export function hullAt(hull: readonly HullVertex[], c: number): number {
  const { lo, hi, lambda } = hullSegment(hull, c);
  return (1 - lambda) * lo.rate + lambda * hi.rate;
}
