import type { CliIO } from '../io/cli-io.ts';
import { SetupError } from '../errors.ts';
import { runSeeds } from '../suite/multi-run.ts';
import type { RunSuiteOptions } from '../suite/run-suite-options.ts';
import type { RunsInput } from './compare-runs.ts';
import type { RunSuiteFn } from './fingerprint-ab.ts';

/** One arm of `compare v1 v2 --runs N` / `--arm … --runs N`: its label and its run options (its base DB path set). */
export interface SeededArm {
  label: string;
  options: RunSuiteOptions;
}

/**
 * Runs each arm once per seed, as `bench run --runs N` does (its own trace DB, pattern store and report per
 * seed, `<label>.seed-<s>.db`, and a `<label>.runs.json` summary), so the arms pair by seed: the same seeds,
 * workloads and provider randomness, different learning trajectories only through what the arm changes.
 */
export async function runArmsOverSeeds(arms: readonly [SeededArm, SeededArm], seeds: readonly number[], io: CliIO, runSuiteFn: RunSuiteFn, nowUs: number): Promise<[RunsInput, RunsInput]> {
  const out: RunsInput[] = [];
  for (const arm of arms) {
    const m = await runSeeds(arm.options, seeds, io, runSuiteFn, nowUs);
    const want = arm.options.fingerprintVersion;
    for (const r of m.results) {
      // A runner that ignored the option would make this a v1-vs-v1 comparison that looks like an A/B.
      if (want && r.report.provenance.fingerprint_version !== want)
        throw new SetupError(`${r.jsonPath}: asked runSuite for fingerprint ${want} but the report says ${r.report.provenance.fingerprint_version}; the fingerprintVersion run option is not wired into the runner`);
    }
    out.push({
      summary: m.summary,
      path: m.summaryPath,
      label: arm.label,
      reports: new Map(m.results.map((r, i) => [seeds[i]!, { report: r.report, path: r.jsonPath, label: `${arm.label} seed ${seeds[i]}` }])),
    });
  }
  return [out[0]!, out[1]!];
}
