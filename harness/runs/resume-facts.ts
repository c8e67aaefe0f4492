import { existsSync } from 'node:fs';
import Database from 'better-sqlite3';
import { SetupError } from '../errors.ts';
import type { ProtocolName } from '../jobs/passes.ts';
import type { RequestedProvider } from '../jobs/resolve-provider.ts';
import type { ShardSpec } from '../jobs/shard.ts';
import { RunJobs } from './run-jobs.ts';
import { RunStore } from './run-store.ts';

/**
 * The options that make a run what it is, as its DB recorded them: `bench run --resume` lays them over
 * the options given now (concurrency, --max-cost, --routing-config, cassettes stay as given).
 */
export interface RunIdentity {
  workloadsDir: string;
  workloadNames: string[];
  includeMarginal: true;
  provider: RequestedProvider;
  model: string;
  baseline: string;
  seedPasses: number;
  seed: number;
  temperature: number;
  dbPath: string;
  patternsDbPath: string | null;
  protocol: ProtocolName;
  fingerprintVersion: 'v1' | 'v2';
  embeddingProvider: string | null;
  cache: boolean;
  /** A3: whether Pass R runs; a resume keeps the choice the run started with. */
  randomArm: boolean;
  shard: ShardSpec | null;
  passes: string | null;
  runId: string;
  resumePath: null;
}

/** What `bench run --resume DB` takes from the DB: the run's identity, and what it had recorded. */
export interface ResumeFacts {
  runId: string;
  startedUs: number;
  /** The run's identity from the DB, to lay over the options given now. */
  identity: RunIdentity;
  warnings: string[];
  recordingErrors: string[];
  /** What earlier `--resume --accept-changed` let differ (provenance.accepted_changes). */
  acceptedChanges: string[];
  /** As stored: `running` (killed), `incomplete` (stopped), or `complete` (only with --retry-errors). */
  status: string;
}

/**
 * Reads an interrupted run back from its trace DB. Refuses (exit 2, naming the fix) a DB that is not
 * a bench run, one written before plans were stored, and a complete run (unless --retry-errors).
 */
export function resumeFacts(dbPath: string, given: { retryErrors?: boolean }): ResumeFacts {
  if (!existsSync(dbPath)) throw new SetupError(`--resume ${dbPath}: no such trace DB`);
  const db = new Database(dbPath, { readonly: true, fileMustExist: true });
  try {
    const runs = new RunStore(db, { create: false });
    const ids = runs.runIds();
    if (ids.length !== 1) throw new SetupError(`--resume ${dbPath}: expected the DB of one bench run, found ${ids.length} run(s)`);
    const runId = ids[0]!;
    const p = runs.provenance(runId)!;
    const jobs = new RunJobs(db);
    const plan = jobs.plan(runId);
    if (!plan) throw new SetupError(`--resume ${dbPath}: this DB has no stored job plan (written by an older bench); start the run again with a new --db-path`);
    const status = jobs.storedStatus(runId);
    if (status === 'complete' && !given.retryErrors) throw new SetupError(`--resume ${dbPath}: run ${runId} is complete; nothing to resume (--retry-errors re-runs its reps that ended in provider errors)`);
    if (p.merged_from) throw new SetupError(`--resume ${dbPath}: a merged DB cannot be resumed; resume the shard that was interrupted, then merge again`);
    const row = db.prepare('SELECT created_at_us FROM bench_runs WHERE run_id = ?').get(runId) as { created_at_us: number };
    const workloadNames = [...new Set(plan.map((j) => j.workload))];
    const identity: RunIdentity = {
      workloadsDir: p.workloads_dir,
      workloadNames,
      includeMarginal: true,
      provider: p.requested_provider as RequestedProvider,
      model: p.actual_model,
      baseline: p.baseline_model,
      seedPasses: p.seed_passes,
      seed: p.seed,
      temperature: p.temperature,
      dbPath,
      patternsDbPath: p.patterns_db_path,
      protocol: p.protocol,
      fingerprintVersion: p.fingerprint_version,
      embeddingProvider: p.embedding_provider ?? null,
      // The cache changes what the remaining reps' calls record, so it is part of the run's identity.
      cache: p.semantic_cache === true,
      randomArm: p.random_arm !== false,
      shard: p.shard ?? null,
      passes: p.passes ? p.passes.join(',') : null,
      runId,
      resumePath: null,
    };
    return { runId, startedUs: row.created_at_us, identity, warnings: runs.warnings(runId), recordingErrors: runs.recordingErrors(runId), acceptedChanges: p.accepted_changes ?? [], status: status ?? 'running' };
  } finally {
    db.close();
  }
}
