import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { formatAjvErrors, validatorFor } from '../../runtime/core/schemas.ts';
import type { MultiRun } from '../../schemas/types/multi-run.ts';
import type { CliIO } from '../io/cli-io.ts';
import { SetupError } from '../errors.ts';
import { buildMultiRunHeadline } from '../report/multi-run-headline.ts';
import type { RunSuiteOptions, RunSuiteResult } from './run-suite-options.ts';
import { defaultDbPath } from './trace-run-host.ts';

/**
 * `bench run --runs N` / `--seeds a,b,c`: N independent learning trajectories of one suite in one command.
 * One trace DB per run (`<base>.seed-<s>.db`, its pattern store and report JSON beside it), so every
 * existing reader (analyze, report, view, compare, merge) takes a run as it is; the summary JSON
 * (schemas/multi-run.schema.json) lists them and holds the combined headline.
 */

/** The runs' seeds: `--seeds` as given, else `--runs N` consecutive seeds from `--seed`. */
export function seedsFor(o: { seed: number; runs?: number | null; seeds?: string | null }): number[] | null {
  if (o.seeds != null) {
    const parts = o.seeds.split(',').map((x) => x.trim());
    const seeds = parts.map(Number);
    if (parts.some((x) => !/^\d+$/.test(x))) throw new SetupError(`--seeds takes a comma list of integers >= 0 (e.g. 0,1,2), got '${o.seeds}'`);
    if (new Set(seeds).size !== seeds.length) throw new SetupError(`--seeds: each seed once (runs with the same seed are the same trajectory), got '${o.seeds}'`);
    if (o.runs != null && o.runs !== seeds.length) throw new SetupError(`--runs ${o.runs} and --seeds '${o.seeds}' (${seeds.length} seeds) disagree; give one of them`);
    return seeds;
  }
  if (o.runs == null || o.runs === 1) return null;
  return Array.from({ length: o.runs }, (_, i) => o.seed + i);
}

/** Where run `seed` of a multi-run command writes: `<base>.seed-<s>.db` and `.json` (the patterns DB defaults beside the DB). */
export function runPaths(baseDb: string, baseJson: string | null, seed: number): { dbPath: string; jsonPath: string } {
  const stem = baseDb.replace(/\.db$/, '');
  const jsonStem = baseJson ? baseJson.replace(/\.json$/, '') : stem;
  return {
    dbPath: `${stem}.seed-${seed}.db`,
    jsonPath: `${jsonStem}.seed-${seed}.json`,
  };
}

/** The finished runs and their summary. */
export interface MultiRunResult {
  summary: MultiRun;
  summaryPath: string;
  results: RunSuiteResult[];
}

/** Runs the suite once per seed, each with its own DBs, then writes the summary with the two-level headline. */
export async function runSeeds(given: RunSuiteOptions, seeds: readonly number[], io: CliIO, run: (o: RunSuiteOptions, io: CliIO) => Promise<RunSuiteResult>, nowUs: number): Promise<MultiRunResult> {
  if (given.patternsDbPath) throw new SetupError('--runs/--seeds give each run its own pattern store beside its DB: drop --patterns-db-path (a shared store would make the runs one trajectory)');
  if (given.resumePath || given.shard || given.passes || given.runId)
    throw new SetupError('--runs/--seeds run whole runs in one invocation: drop --resume, --shard, --passes and --run-id (resume a run by its own DB)');
  const baseDb = given.dbPath ? resolve(io.cwd, given.dbPath) : defaultDbPath(io.cwd, nowUs);
  const baseJson = given.jsonPath ? resolve(io.cwd, given.jsonPath) : null;
  const summaryPath = baseJson ?? `${baseDb.replace(/\.db$/, '')}.runs.json`;
  const results: RunSuiteResult[] = [];
  for (const seed of seeds) {
    const paths = runPaths(baseDb, baseJson, seed);
    results.push(await run({ ...given, seed, ...paths, patternsDbPath: null, runId: null }, io));
  }
  const summary: MultiRun = {
    multi_run_version: 1,
    protocol: given.protocol,
    seed_passes: given.seedPasses,
    runs: results.map((r, i) => ({
      seed: seeds[i]!,
      run_id: r.report.provenance.run_id,
      json_path: r.jsonPath,
      db_path: r.dbPath,
      exit_code: r.report.exit_code,
    })),
    headline: buildMultiRunHeadline(results.map((r, i) => ({ seed: seeds[i]!, report: r.report }))),
  };
  const validate = validatorFor<MultiRun>('multi-run.schema.json');
  if (!validate(summary)) throw new Error(`internal error: the multi-run summary does not match schemas/multi-run.schema.json: ${formatAjvErrors(validate.errors).join('; ')}`);
  mkdirSync(dirname(summaryPath), { recursive: true });
  writeFileSync(summaryPath, `${JSON.stringify(summary, null, 2)}\n`);
  return { summary, summaryPath, results };
}
