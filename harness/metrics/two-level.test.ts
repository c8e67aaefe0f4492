import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { clusteredCoverage, twoLevelCoverage } from './coverage-simulation.ts';
import { pairedDifference, pairedDifferenceParts, type PairedUnit } from './paired-stats.ts';
import { combineRuns } from './two-level.ts';

// One unit per workload: the routed arm's value minus 0, so the figure is the mean of `values`.
const runOf = (values: readonly number[]): PairedUnit[] => values.map((v, i) => ({ cluster: `w${i}`, a: { num: 0, den: 1 }, b: { num: v, den: 1 } }));
const WORKLOADS = [3, -1, 4, 1, -5, 9, 2, -6, 5, 3];

describe('two-level interval over runs', () => {
  it('one run is the run’s own CR2 interval, conditional on its learned state', () => {
    const units = runOf(WORKLOADS);
    const one = combineRuns([{ run: 'seed-0', parts: pairedDifferenceParts(units, 'ratio')! }], 0.95);
    const own = pairedDifference(units, 'ratio', 0.95);
    expect(one).toMatchObject({ estimate: own.estimate, se: own.se, ci_low: own.ci_low, ci_high: own.ci_high, runs: 1, between_se: null });
  });

  it('hand-made runs that differ only by a run shift of known variance: V = V_within + s²_runs / R', () => {
    const shifts = [-2, 0, 2]; // sample variance s² = 4
    const runs = shifts.map((b, r) => ({ run: `seed-${r}`, parts: pairedDifferenceParts(runOf(WORKLOADS.map((w) => w + b)), 'ratio')! }));
    const e = combineRuns(runs, 0.95);
    const within = pairedDifference(runOf(WORKLOADS), 'ratio', 0.95).se!;
    expect(e.estimate).toBeCloseTo(WORKLOADS.reduce((s, x) => s + x, 0) / WORKLOADS.length, 12);
    expect(e.within_se).toBeCloseTo(within, 12);
    expect(e.between_se! ** 2).toBeCloseTo(4 / 3, 12);
    expect(e.se! ** 2).toBeCloseTo(within ** 2 + 4 / 3, 12);
    expect(e.per_run.map((p) => p.estimate - e.estimate!)).toEqual(shifts.map((b) => expect.closeTo(b, 12)));
    // Wider than the single run's interval: the runs' spread is a source of variance it cannot see.
    expect(e.ci_high! - e.ci_low!).toBeGreaterThan(2 * 2.262 * within);
  });

  it('runs that agree unit for unit add nothing: the combined interval is the single run’s', () => {
    fc.assert(
      fc.property(fc.array(fc.double({ min: -10, max: 10, noNaN: true }), { minLength: 3, maxLength: 12 }), fc.integer({ min: 2, max: 5 }), (values, r) => {
        const units = runOf(values);
        const own = pairedDifference(units, 'ratio', 0.95);
        const e = combineRuns(
          Array.from({ length: r }, (_, i) => ({ run: `s${i}`, parts: pairedDifferenceParts(units, 'ratio')! })),
          0.95,
        );
        expect(e.between_se).toBeCloseTo(0, 9);
        expect(e.se!).toBeCloseTo(own.se!, 9);
        expect(e.ci_low!).toBeCloseTo(own.ci_low!, 6);
      }),
    );
  });

  it('refuses no runs and runs with the same name', () => {
    const parts = pairedDifferenceParts(runOf(WORKLOADS), 'ratio')!;
    expect(() => combineRuns([], 0.95)).toThrow(/at least one run/);
    expect(() => combineRuns([{ run: 's', parts }, { run: 's', parts }], 0.95)).toThrow(/distinct/);
  });

  it('simulation: the estimated variance matches the mean’s spread across draws, and the interval covers where one run’s does not', () => {
    const c = twoLevelCoverage({ seed: 23, draws: 1000, workloads: 15, runs: 5, reps: 3, sdWorkload: 1, sdRun: 0.5, sdUnit: 1 });
    expect(c.mean_estimated_variance / c.empirical_variance).toBeGreaterThan(0.9);
    expect(c.mean_estimated_variance / c.empirical_variance).toBeLessThan(1.1);
    expect(Math.abs(c.combined - 0.95)).toBeLessThanOrEqual(0.02);
    // One run's interval is about its own learned state: as a claim about the population it misses often.
    expect(c.single_run).toBeLessThan(0.8);
  });
});

describe('CR2 / Bell–McCaffrey coverage with 15 clusters', () => {
  it('a synthetic population of 15 unequal workloads: CR2 covers within 2 pts of 95%, the former CR1 does not', () => {
    const c = clusteredCoverage({ seed: 23, draws: 4000, sizes: [30, 20, 10, 5, 5, 3, 3, 3, 2, 2, 2, 2, 1, 1, 1], sdCluster: 1, sdUnit: 1, firstClusterScale: 3 });
    expect(Math.abs(c.cr2 - 0.95)).toBeLessThanOrEqual(0.02);
    expect(c.cr1).toBeLessThan(0.93);
  });

  it('equal workloads: CR2 and CR1 agree (t on G − 1 is exact there)', () => {
    const c = clusteredCoverage({ seed: 5, draws: 1500, sizes: Array.from({ length: 15 }, () => 3), sdCluster: 1, sdUnit: 1, firstClusterScale: 1 });
    expect(c.cr2).toBe(c.cr1);
    expect(Math.abs(c.cr2 - 0.95)).toBeLessThanOrEqual(0.02);
  });
});
