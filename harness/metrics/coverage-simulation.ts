import { seededRandom } from '../../runtime/core/seeded-random.ts';
import { studentTQuantile } from './student-t.ts';
import { pairedDifference, pairedDifferenceParts, type PairedUnit } from './paired-stats.ts';
import { combineRuns } from './two-level.ts';

/**
 * Coverage of the headline's intervals on synthetic populations with a known truth (issue 23 item 4):
 * deterministic (a seeded PRNG), cheap (a few thousand draws), and what the tests and
 * scripts/stats/coverage.ts report.
 */

/** A standard normal draw from a uniform source (Box–Muller). */
function normal(rnd: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - rnd())) * Math.cos(2 * Math.PI * rnd());
}

/** One-run coverage: clusters of the given sizes, each with its own effect on the paired difference. */
export interface ClusteredDesign {
  seed: number;
  draws: number;
  /** Units per cluster (workload × reps); 15 entries for the shipped suite's size. */
  sizes: readonly number[];
  /** SD of a cluster's effect on the difference. */
  sdCluster: number;
  /** SD of a unit's own noise. */
  sdUnit: number;
  /** The first cluster's effect SD is this many times sdCluster (a big, noisy workload). */
  firstClusterScale: number;
}

/** Share of draws whose 95% interval held the true difference 0, by method. */
export interface ClusteredCoverage {
  /** CR2 with Bell–McCaffrey df (what the harness uses). */
  cr2: number;
  /** The former estimator: G/(G − 1) · Σ E_g² with t on G − 1 df. */
  cr1: number;
  draws: number;
}

/** Draws paired units from `d` (true difference 0) and counts how often each interval covers 0. */
export function clusteredCoverage(d: ClusteredDesign): ClusteredCoverage {
  const rnd = seededRandom(d.seed);
  const g = d.sizes.length;
  const t1 = studentTQuantile(0.975, g - 1);
  let cr2 = 0;
  let cr1 = 0;
  for (let k = 0; k < d.draws; k++) {
    const units: PairedUnit[] = [];
    d.sizes.forEach((n, c) => {
      const effect = d.sdCluster * (c === 0 ? d.firstClusterScale : 1) * normal(rnd);
      for (let i = 0; i < n; i++) units.push({ cluster: `w${c}`, a: { num: 0, den: 1 }, b: { num: effect + d.sdUnit * normal(rnd), den: 1 } });
    });
    const e = pairedDifference(units, 'ratio', 0.95);
    if (e.ci_low! <= 0 && 0 <= e.ci_high!) cr2++;
    const parts = pairedDifferenceParts(units, 'ratio')!;
    const sums = new Map<string, number>();
    parts.influence.forEach((x, i) => sums.set(parts.clusters[i]!, (sums.get(parts.clusters[i]!) ?? 0) + x));
    const half = t1 * Math.sqrt((g / (g - 1)) * [...sums.values()].reduce((s, x) => s + x * x, 0));
    if (Math.abs(parts.estimate) <= half) cr1++;
  }
  return { cr2: cr2 / d.draws, cr1: cr1 / d.draws, draws: d.draws };
}

/** Several runs of the same workloads: workload, run and cell effects on the difference, all of known SD. */
export interface TwoLevelDesign {
  seed: number;
  draws: number;
  workloads: number;
  runs: number;
  /** Units (reps) per (workload, run) cell. */
  reps: number;
  sdWorkload: number;
  /** SD of a run's learned-state effect, shared by all its workloads. */
  sdRun: number;
  sdUnit: number;
}

/** How often the combined and the first run's own interval hold the population difference 0, and the variance check. */
export interface TwoLevelCoverage {
  combined: number;
  /** The first run alone, conditional on its learned state, read as if about the population. */
  single_run: number;
  /** Mean of the estimated Var(mean of runs) over the draws, and the variance of that mean across draws. */
  mean_estimated_variance: number;
  empirical_variance: number;
  draws: number;
}

/** Draws `d.runs` runs per draw (true difference 0) and scores the two-level interval against the one-run one. */
export function twoLevelCoverage(d: TwoLevelDesign): TwoLevelCoverage {
  const rnd = seededRandom(d.seed);
  let combined = 0;
  let single = 0;
  let vSum = 0;
  const means: number[] = [];
  for (let k = 0; k < d.draws; k++) {
    const w = Array.from({ length: d.workloads }, () => d.sdWorkload * normal(rnd));
    const runs = Array.from({ length: d.runs }, (_, r) => {
      const b = d.sdRun * normal(rnd);
      const units: PairedUnit[] = [];
      w.forEach((effect, c) => {
        for (let i = 0; i < d.reps; i++) units.push({ cluster: `w${c}`, a: { num: 0, den: 1 }, b: { num: effect + b + d.sdUnit * normal(rnd), den: 1 } });
      });
      return { run: `seed-${r}`, parts: pairedDifferenceParts(units, 'ratio')!, units };
    });
    const e = combineRuns(runs, 0.95);
    if (e.ci_low! <= 0 && 0 <= e.ci_high!) combined++;
    const one = pairedDifference(runs[0]!.units, 'ratio', 0.95);
    if (one.ci_low! <= 0 && 0 <= one.ci_high!) single++;
    vSum += e.se! ** 2;
    means.push(e.estimate!);
  }
  const m = means.reduce((s, x) => s + x, 0) / means.length;
  return {
    combined: combined / d.draws,
    single_run: single / d.draws,
    mean_estimated_variance: vSum / d.draws,
    empirical_variance: means.reduce((s, x) => s + (x - m) ** 2, 0) / (means.length - 1),
    draws: d.draws,
  };
}
