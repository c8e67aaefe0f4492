import type Database from 'better-sqlite3';
import type { Provenance } from '../../schemas/types/report.ts';
import { SetupError } from '../errors.ts';
import { openTraceDbReadOnly } from '../report/report-from-db.ts';
import { passesOf } from '../jobs/passes.ts';
import { RunJobs } from '../runs/run-jobs.ts';
import { RunStore } from '../runs/run-store.ts';
import { inputChanges, storedInputs } from '../runs/run-inputs.ts';
import type { RunJob } from '../jobs/shard.ts';

/** One DB given to `bench merge`, read once. */
export interface MergeInput {
  path: string;
  db: Database.Database;
  runId: string;
  provenance: Provenance;
  /** Every job of the whole run (the same list on every shard), with the DB's own in_this_db flag (not trusted by merge). */
  plan: (RunJob & { mine: boolean })[];
  passes: string[];
  shard: { index: number; count: number };
  warnings: string[];
  recordingErrors: string[];
  createdAtUs: number;
  /** The workload and commit digests the run recorded (harness/runs/run-inputs.ts); null from an older bench. */
  inputs: Map<string, string> | null;
}

/** Opens a shard DB read-only and reads what the merge checks; a DB that cannot be merged is a SetupError naming it. */
export function readMergeInput(path: string): MergeInput {
  // The same opening as analyze: missing, foreign, another schema version or damaged is a SetupError naming it.
  const db = openTraceDbReadOnly(path);
  const runs = new RunStore(db, { create: false });
  const ids = runs.runIds();
  if (ids.length !== 1) {
    db.close();
    throw new SetupError(`${path}: holds ${ids.length} bench runs; bench merge takes the DB of one shard each`);
  }
  const runId = ids[0]!;
  const jobs = new RunJobs(db);
  const plan = jobs.plan(runId);
  const status = jobs.storedStatus(runId);
  const provenance = runs.provenance(runId)!;
  const fail = (why: string) => {
    db.close();
    return new SetupError(`${path}: ${why}`);
  };
  if (!plan) throw fail('no stored job plan (written by an older bench); run the shard again');
  if (status === 'running') throw fail(`run ${runId} is interrupted (never finished); finish it with bench run --resume ${path}, then merge`);
  if (status === 'incomplete') throw fail(`run ${runId} is incomplete (stopped by --max-cost or Ctrl-C); finish it with bench run --resume ${path}, then merge`);
  const row = db.prepare('SELECT created_at_us FROM bench_runs WHERE run_id = ?').get(runId) as { created_at_us: number };
  // What it ran, from its provenance (a merged DB records the passes it covers when not all): never from its in_this_db flags.
  const passes = provenance.passes ?? passesOf(provenance.protocol).map((p) => p.name);
  return { path, db, runId, provenance, plan, passes, shard: provenance.shard ?? { index: 1, count: 1 }, warnings: runs.warnings(runId), recordingErrors: runs.recordingErrors(runId), createdAtUs: row.created_at_us, inputs: storedInputs(db, runId) };
}

/** The provenance fields that make DBs shards of one run; the first that differs is named in the refusal. */
const SAME_RUN: [string, (p: Provenance, i: MergeInput) => unknown][] = [
  ['run_id', (p) => p.run_id],
  ['suite (selected workloads and reps)', (_p, i) => JSON.stringify(i.plan.map((j) => [j.pass, j.workload, j.rep]))],
  ['metis_commit_sha', (p) => p.metis_commit_sha],
  ['pricing_version', (p) => p.pricing_version],
  ['protocol', (p) => p.protocol],
  ['seed', (p) => p.seed],
  ['seed_passes', (p) => p.seed_passes],
  ['actual_model', (p) => p.actual_model],
  ['baseline_model', (p) => p.baseline_model],
  ['fingerprint_version', (p) => p.fingerprint_version],
  ['embedding_provider', (p) => p.embedding_provider ?? null],
  ['semantic_cache (--cache on)', (p) => p.semantic_cache === true],
  ['temperature', (p) => p.temperature],
  // Same commit, other workload files (a gutted check on one machine): not one run.
  ['workload content (workload.yaml, workspace/, check/, sim script)', (_p, i) => JSON.stringify([...(i.inputs ?? [])].filter(([k]) => k !== 'commit').sort())],
];

/**
 * Refuses inputs that are not the complete shards of one run: a field that differs (named, with both
 * values), two DBs covering the same shard of a pass (overlap), or a pass whose shards are not all
 * there (missing, named). Passes no input ran are simply absent from the merge (e.g. A,B before C,D).
 * Returns the passes the merge covers, in protocol order.
 */
export function checkMergeInputs(inputs: readonly MergeInput[]): string[] {
  if (inputs.length === 0) throw new SetupError('bench merge needs at least one DB');
  const first = inputs[0]!;
  for (const other of inputs.slice(1)) {
    for (const [field, get] of SAME_RUN) {
      const a = get(first.provenance, first);
      const b = get(other.provenance, other);
      if (JSON.stringify(a) !== JSON.stringify(b)) {
        const show = (v: unknown) => (field.startsWith('suite') ? `${JSON.parse(String(v)).length} jobs` : JSON.stringify(v));
        if (field.startsWith('workload content'))
          throw new SetupError(`not shards of one run: ${field} differs between ${first.path} and ${other.path}: ${inputChanges(first.inputs ?? new Map(), other.inputs ?? new Map()).join('; ')}`);
        throw new SetupError(`not shards of one run: ${field} differs: ${first.path} has ${show(a)}, ${other.path} has ${show(b)}`);
      }
    }
  }
  const order = passesOf(first.provenance.protocol).map((p) => p.name);
  const covered: string[] = [];
  for (const pass of order) {
    const holders = inputs.filter((i) => i.passes.includes(pass));
    if (holders.length === 0) continue;
    covered.push(pass);
    const counts = [...new Set(holders.map((h) => h.shard.count))];
    if (counts.length > 1)
      throw new SetupError(`overlapping shards: pass ${pass} is split ${counts.map((c) => `${c} ways`).join(' and ')} (${holders.map((h) => `${h.path} is ${h.shard.index}/${h.shard.count}`).join(', ')})`);
    const n = counts[0]!;
    for (let i = 1; i <= n; i++) {
      const at = holders.filter((h) => h.shard.index === i);
      if (at.length > 1) throw new SetupError(`overlapping shards: shard ${i}/${n} of pass ${pass} is in ${at.map((h) => h.path).join(' and ')}`);
    }
    const missing = Array.from({ length: n }, (_, k) => k + 1).filter((i) => !holders.some((h) => h.shard.index === i));
    if (missing.length) throw new SetupError(`missing shards: pass ${pass} lacks shard ${missing.map((i) => `${i}/${n}`).join(', ')} (have ${holders.map((h) => `${h.shard.index}/${n} in ${h.path}`).join(', ')})`);
  }
  return covered;
}
