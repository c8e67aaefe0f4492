import { normalQuantile } from './power.ts';
import { studentTQuantile } from './student-t.ts';

/**
 * Designs for `bench plan` (issue 23 item 6). A paired per-unit difference (routed − strong, in points) on
 * W workloads × K reps × R runs, under the crossed model d = μ + w_g + b_r + e, has
 *   Var(mean) = σ²_w / W + σ²_r / R + σ²_e / (W·K·R),
 * and a 95% interval of half-width t_{W−1} · √Var. The components come from a pilot (one run or several).
 */

/** One unit of the pilot: its workload and its paired difference in points. */
export interface PilotUnit {
  workload: string;
  value: number;
}

/** The variance components of a pilot, in points². */
export interface VarianceComponents {
  /** Between workloads. */
  workload: number;
  /** Between runs (learning trajectories); null when the pilot has one run and cannot estimate it. */
  run: number | null;
  /** Within a (workload, run) cell: rep noise. */
  residual: number;
  /** Intra-cluster correlation σ²_w / (σ²_w + σ²_e); null when both are 0. */
  icc: number | null;
  /** The pilot's mean difference (mean of the runs' means). */
  mean: number;
  workloads: number;
  /** Mean reps per (workload, run) cell. */
  reps: number;
  runs: number;
}

const meanOf = (xs: readonly number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
const varOf = (xs: readonly number[]) => {
  const m = meanOf(xs);
  return xs.length < 2 ? 0 : xs.reduce((s, x) => s + (x - m) ** 2, 0) / (xs.length - 1);
};

/**
 * Moment estimates from a pilot, each truncated at 0: σ²_e pooled within cells; σ²_w from the spread of the
 * workload means less what σ²_e explains; σ²_r from the spread of the run means less what σ²_e explains.
 * With one rep per cell σ²_e cannot be told from σ²_w: it is taken as 0 and all spread goes to workloads
 * (so more reps look useless, the cautious reading).
 */
export function varianceComponents(runs: readonly (readonly PilotUnit[])[]): VarianceComponents {
  const r = runs.length;
  if (r === 0 || runs.some((u) => u.length === 0)) throw new RangeError('a pilot needs at least one run with paired units');
  const cells = new Map<string, number[]>();
  runs.forEach((units, i) => units.forEach((u) => cells.set(`${i}\u0000${u.workload}`, [...(cells.get(`${i}\u0000${u.workload}`) ?? []), u.value])));
  let ss = 0;
  let df = 0;
  for (const xs of cells.values()) {
    const m = meanOf(xs);
    ss += xs.reduce((s, x) => s + (x - m) ** 2, 0);
    df += xs.length - 1;
  }
  const residual = df > 0 ? ss / df : 0;
  const workloads = [...new Set(runs.flatMap((u) => u.map((x) => x.workload)))];
  const w = workloads.length;
  const k = runs.reduce((s, u) => s + u.length, 0) / cells.size;
  const workloadMeans = workloads.map((name) => meanOf(runs.flatMap((u) => u.filter((x) => x.workload === name).map((x) => x.value))));
  const workload = Math.max(0, varOf(workloadMeans) - residual / (k * r));
  const runMeans = runs.map((u) => meanOf(u.map((x) => x.value)));
  const run = r < 2 ? null : Math.max(0, varOf(runMeans) - residual / (w * k));
  const icc = workload + residual > 0 ? workload / (workload + residual) : null;
  return { workload, run, residual, icc, mean: meanOf(runMeans), workloads: w, reps: k, runs: r };
}

/** Var(mean) of a design W × K × R; an unknown run component counts as 0. */
export function designVariance(c: Pick<VarianceComponents, 'workload' | 'run' | 'residual'>, workloads: number, reps: number, runs: number): number {
  return c.workload / workloads + (c.run ?? 0) / runs + c.residual / (workloads * reps * runs);
}

// Plans search thousands of designs: the quantile depends only on (level, df).
const tCache = new Map<string, number>();
const tQuantile = (p: number, df: number): number => {
  const key = `${p}:${df}`;
  let q = tCache.get(key);
  if (q === undefined) tCache.set(key, (q = studentTQuantile(p, df)));
  return q;
};

/** The 95% (or `confidence`) half-width of a design: t_{W−1} · √Var, plus z_power · √Var when planning for power. */
export function designHalfWidth(c: Pick<VarianceComponents, 'workload' | 'run' | 'residual'>, workloads: number, reps: number, runs: number, confidence = 0.95, power = 0.5): number {
  const crit = tQuantile((1 + confidence) / 2, Math.max(1, workloads - 1)) + (power > 0.5 ? normalQuantile(power) : 0);
  return crit * Math.sqrt(designVariance(c, workloads, reps, runs));
}

/** One design that reaches a target, or the reason none does. */
export interface Design {
  workloads: number;
  reps: number;
  runs: number;
  /** Its half-width (with the power quantile when planned for power). */
  half_width: number;
}

/** Search limits: no design beyond these is proposed. */
export const PLAN_LIMITS = { reps: 100, workloads: 2000 } as const;

/**
 * For `runs` runs, the cheapest design reaching `target` (half-width, points): on the pilot's workloads the
 * fewest reps that reach it; if none within PLAN_LIMITS.reps, the fewest workloads at the pilot's reps. Null
 * when even PLAN_LIMITS.workloads workloads do not (the run component alone is too large: add runs).
 */
export function designFor(c: VarianceComponents, target: number, runs: number, confidence = 0.95, power = 0.5): Design | null {
  if (!(target > 0)) throw new RangeError(`the target half-width must be > 0 points, got ${target}`);
  const w0 = c.workloads;
  const k0 = Math.max(1, Math.round(c.reps));
  // Both searches are monotone (more reps or workloads never widen the interval): bisect for the fewest.
  const k = fewest(1, PLAN_LIMITS.reps, (x) => designHalfWidth(c, w0, x, runs, confidence, power) <= target);
  if (k !== null) return { workloads: w0, reps: k, runs, half_width: designHalfWidth(c, w0, k, runs, confidence, power) };
  const w = fewest(w0 + 1, PLAN_LIMITS.workloads, (x) => designHalfWidth(c, x, k0, runs, confidence, power) <= target);
  return w === null ? null : { workloads: w, reps: k0, runs, half_width: designHalfWidth(c, w, k0, runs, confidence, power) };
}

/** The least integer in [lo, hi] where the monotone `ok` holds; null when it holds nowhere. */
function fewest(lo: number, hi: number, ok: (x: number) => boolean): number | null {
  if (lo > hi || !ok(hi)) return null;
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    if (ok(mid)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}
