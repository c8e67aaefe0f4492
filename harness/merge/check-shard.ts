import { SetupError } from '../errors.ts';
import { HOLDOUT_PASS, RANDOM_PASS, passesOf } from '../jobs/passes.ts';
import { randomArmNotRun } from '../protocols/report-section.ts';
import { jobKey, type RunJob } from '../jobs/shard.ts';
import { checkSeal } from '../runs/run-seal.ts';
import type { MergeInput } from './merge-inputs.ts';
import { patternStorePathOf } from './merge-patterns.ts';
import { coverageProblems, jobsOfShard, planHoles, showJob as show } from './plan-coverage.ts';

/** A rep row's key as stored. */
export interface RepKey {
  run_id: string;
  pass: string;
  workload: string;
  rep: number;
}

/**
 * How a DB's rep rows differ from its planned jobs, one line per problem (empty when they are exactly
 * the plan): rows of another run, duplicate rows, rows of jobs planned for another DB (a foreign
 * slice), rows no plan holds, and planned jobs without a row. `mine` says which jobs are this DB's;
 * the merge recomputes it from the shard spec (jobsOfShard), never from the DB's own flags.
 */
export function planMismatch(runId: string, plan: readonly (RunJob & { mine: boolean })[], rows: readonly RepKey[], extraExpected: readonly Pick<RunJob, 'pass' | 'workload' | 'rep'>[] = []): string[] {
  const mine = new Map([...plan.filter((j) => j.mine), ...extraExpected].map((j) => [jobKey(j), j]));
  const others = new Set(plan.filter((j) => !j.mine).map(jobKey));
  const seen = new Map<string, number>();
  const out: string[] = [];
  for (const r of rows) {
    if (r.run_id !== runId) {
      out.push(`a row of another run (${r.run_id}): ${show(r)}`);
      continue;
    }
    const k = jobKey(r);
    seen.set(k, (seen.get(k) ?? 0) + 1);
    if (seen.get(k) === 2) out.push(`more than one row for ${show(r)}`);
    if (!mine.has(k)) out.push(others.has(k) ? `${show(r)} is another shard's job (a foreign slice)` : `${show(r)} is in no plan of this run (an extra row)`);
  }
  for (const [k, j] of mine) if (!seen.has(k)) out.push(`no row for planned ${show(j)} (missing)`);
  return out;
}

/** The rep keys of an input DB. */
function repKeys(input: MergeInput): RepKey[] {
  return input.db.prepare('SELECT run_id, pass, workload, rep FROM workload_runs').all() as RepKey[];
}

/**
 * Refuses (exit 2, naming the DB, the table and each rep) a shard whose content or pattern store no
 * longer matches the seal written when it finished (under `key` when given), whose stored plan is not
 * whole, or whose rep rows are not exactly the jobs its shard spec gives it.
 */
export function checkShard(input: MergeInput, key: Buffer | null): void {
  checkSeal(input.db, input.path, input.runId, { key, patternsPath: patternStorePathOf(input) });
  const holes = planHoles(input.plan, passesOf(input.provenance.protocol));
  if (holes.length) throw new SetupError(`${input.path}: table bench_run_jobs is not a whole plan of run ${input.runId} (${holes.length} problem(s)): ${holes.slice(0, 6).join('; ')}${holes.length > 6 ? '; …' : ''}. Run the shard again`);
  // This DB's jobs from its shard spec and passes: the in_this_db flags it carries are not trusted.
  const own = new Set(jobsOfShard(input.plan, input.passes, input.shard).map(jobKey));
  const plan = input.plan.map((j) => ({ ...j, mine: own.has(jobKey(j)) }));
  // Pass C-oos (--holdout) pairs each Pass C rep, outside the plan.
  const passC = plan.filter((j) => j.mine && j.pass === 'C');
  const holdout = input.provenance.holdout ? passC.map((j) => ({ ...j, pass: HOLDOUT_PASS.name })) : [];
  // Pass R (the random router that ran) replays each Pass C rep after the plan, in a DB that held all of C;
  // it runs whole or not at all (C routed no turn), and the seal above covers a deleted R row.
  const rows = repKeys(input);
  const randomArm = randomArmNotRun(input.provenance) === null && rows.some((r) => r.pass === RANDOM_PASS.name) ? passC.map((j) => ({ ...j, pass: RANDOM_PASS.name })) : [];
  const problems = planMismatch(input.runId, plan, rows, [...holdout, ...randomArm]);
  if (problems.length)
    throw new SetupError(`${input.path}: table workload_runs is not this shard's plan (${problems.length} problem(s)): ${problems.slice(0, 6).join('; ')}${problems.length > 6 ? '; …' : ''}. Run the shard again`);
}

/**
 * Refuses inputs that together do not hold every planned job of the covered passes exactly once, each
 * where its shard spec puts it: recomputed from the one plan and the shard specs, naming each job.
 */
export function checkCoverage(inputs: readonly MergeInput[], covered: readonly string[]): void {
  const problems = coverageProblems(
    inputs[0]!.plan,
    covered,
    inputs.map((i) => ({ path: i.path, passes: i.passes, shard: i.shard, rows: repKeys(i) })),
  );
  if (problems.length) throw new SetupError(`the inputs do not hold every planned job of passes ${covered.join(',')} exactly once (${problems.length} problem(s)): ${problems.slice(0, 6).join('; ')}${problems.length > 6 ? '; …' : ''}`);
}

/** Refuses a rep that two inputs both hold: which one counts is never decided by the order of the arguments. */
export function checkNoSharedReps(inputs: readonly MergeInput[]): void {
  const holder = new Map<string, string>();
  for (const input of inputs) {
    for (const r of repKeys(input)) {
      const k = jobKey(r);
      const other = holder.get(k);
      if (other !== undefined && other !== input.path) throw new SetupError(`the same rep is in two inputs: ${show(r)} is in ${other} and in ${input.path}; shards of one run share no rep, so merge refuses rather than pick one`);
      holder.set(k, input.path);
    }
  }
}
