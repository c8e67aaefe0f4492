import { clusteredSeCr2, withInterval, type ClusteredEstimate, type FigureParts, type FigureRange } from './paired-stats.ts';

/**
 * A figure over several independent runs (learning trajectories) of the same workloads (issue 23 item 4).
 * Runs share the workloads but not the learned state, so the figure varies on three levels: which
 * workloads were drawn (σ²_w), which learning trajectory the run took (σ²_r, e.g. whether slot 4 ever
 * fired), and the noise of each (workload, run) cell (σ²_e). The mean over R runs of G workloads has
 * Var = σ²_w/G + σ²_r/R + σ²_e/(GR). Its estimator is the two-way clustered variance of Cameron, Gelbach
 * and Miller (2011) on the run-pooled influences u (each unit's influence on the mean of the runs, centred
 * on the grand mean), each part CR2-corrected:
 *   V_within  = clustered by workload (the within-run clustered variance of the run-averaged figure),
 *   V_runs    = clustered by run (= s²_R / R, the runs' spread),
 *   V_cells   = the (workload, run) cells' sums of u with workload and run means taken out (two-way demeaned),
 *               times GR / ((G − 1)(R − 1)): the part of the runs' spread that cell noise alone explains,
 *   V = V_within + max(0, V_runs − V_cells)   (the between-run component is never negative).
 * Degrees of freedom: Welch–Satterthwaite over the two parts (Bell–McCaffrey df for the within part,
 * R − 1 for the between part). With one run, V = V_within: conditional on that run's learned state.
 */

/** One run's figure and its parts; `run` names it (its seed). */
export interface RunParts {
  run: string;
  parts: FigureParts;
}

/** The combined figure over runs: the interval of the mean of the runs, with its variance components. */
export interface TwoLevelEstimate extends ClusteredEstimate {
  runs: number;
  /** Each run's own figure, in run order. */
  per_run: { run: string; estimate: number }[];
  /** √V_within: the workload-clustered standard error of the run-averaged figure. */
  within_se: number | null;
  /** √max(0, V_runs − V_cells): what the learning trajectories add. Null with one run. */
  between_se: number | null;
}

/** The combined estimate of `runs` (each a figure on its own units; clusters are workloads), at `confidence`. */
export function combineRuns(runs: readonly RunParts[], confidence: number, range?: FigureRange): TwoLevelEstimate {
  if (runs.length === 0) throw new RangeError('combineRuns needs at least one run');
  if (new Set(runs.map((r) => r.run)).size !== runs.length) throw new RangeError(`run names must be distinct, got ${runs.map((r) => r.run).join(', ')}`);
  const r = runs.length;
  const mean = runs.reduce((s, x) => s + x.parts.estimate, 0) / r;
  const infl: number[] = [];
  const workload: string[] = [];
  const run: string[] = [];
  const weights: number[] = [];
  const equal = runs.every((x) => x.parts.weights === 'equal-clusters');
  for (const x of runs) {
    const p = x.parts;
    const w = p.weights === 'equal-clusters' ? p.influence.map(() => 1) : p.weights;
    const wSum = w.reduce((s, v) => s + v, 0);
    // Unit i's influence on the mean of the runs, centred on the grand mean: its run-level influence plus its
    // share (by leverage weight) of the run's deviation from the mean, over R.
    p.influence.forEach((e, i) => {
      infl.push((e + (wSum > 0 ? ((p.estimate - mean) * w[i]!) / wSum : (p.estimate - mean) / p.influence.length)) / r);
      workload.push(p.clusters[i]!);
      run.push(x.run);
      weights.push(w[i]! / (wSum > 0 ? wSum : 1));
    });
  }
  const units = infl.length;
  const g = new Set(workload).size;
  const within = clusteredSeCr2(infl, workload, equal ? 'equal-clusters' : weights);
  const perRun = runs.map((x) => ({ run: x.run, estimate: x.parts.estimate }));
  if (r === 1 || within === null) {
    const e = withInterval(mean, within?.se ?? null, units, g, confidence, range, within?.df ?? g - 1);
    return { ...e, runs: r, per_run: perRun, within_se: within?.se ?? null, between_se: null };
  }
  const vRuns = (r / (r - 1)) * runs.reduce((s, x) => s + ((x.parts.estimate - mean) / r) ** 2, 0);
  const vCells = cellVariance(infl, workload, run);
  const vWithin = within.se ** 2;
  const vBetween = Math.max(0, vRuns - vCells);
  const v = vWithin + vBetween;
  const denom = vWithin ** 2 / within.df + vBetween ** 2 / (r - 1);
  const df = denom > 0 ? (v * v) / denom : within.df;
  const e = withInterval(mean, Math.sqrt(v), units, g, confidence, range, df);
  return { ...e, runs: r, per_run: perRun, within_se: within.se, between_se: Math.sqrt(vBetween) };
}

/** GR/((G − 1)(R − 1)) · Σ over (workload, run) cells of the two-way demeaned cell sums²; a missing cell counts as 0. */
function cellVariance(infl: readonly number[], workload: readonly string[], run: readonly string[]): number {
  const ws = [...new Set(workload)];
  const rs = [...new Set(run)];
  const g = ws.length;
  const r = rs.length;
  if (g < 2 || r < 2) return 0;
  const wi = new Map(ws.map((w, i) => [w, i]));
  const ri = new Map(rs.map((x, i) => [x, i]));
  const cells = Array.from({ length: g }, () => new Array<number>(r).fill(0));
  infl.forEach((e, i) => (cells[wi.get(workload[i]!)!]![ri.get(run[i]!)!]! += e));
  const rowMean = cells.map((row) => row.reduce((s, x) => s + x, 0) / r);
  const colMean = rs.map((_, j) => cells.reduce((s, row) => s + row[j]!, 0) / g);
  const all = rowMean.reduce((s, x) => s + x, 0) / g;
  let ss = 0;
  for (let i = 0; i < g; i++) for (let j = 0; j < r; j++) ss += (cells[i]![j]! - rowMean[i]! - colMean[j]! + all) ** 2;
  return ((g * r) / ((g - 1) * (r - 1))) * ss;
}
