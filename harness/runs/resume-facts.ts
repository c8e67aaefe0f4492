import { existsSync } from 'node:fs';
import Database from 'better-sqlite3';
import { SetupError } from '../errors.ts';
import type { RunSuiteOptions } from '../runner/run-suite.ts';
import { RunJobs } from './run-jobs.ts';
import { RunStore } from './run-store.ts';

/** What `bench run --resume DB` takes from the DB: the run's identity, and what it had recorded. */
export interface ResumeFacts {
  runId: string;
  startedUs: number;
  /** The run's options: identity from the DB, the rest (concurrency, --max-cost, --routing-config, cassettes) as given now. */
  options: RunSuiteOptions;
  warnings: string[];
  recordingErrors: string[];
  /** As stored: `running` (killed), `incomplete` (stopped), or `complete` (only with --retry-errors). */
  status: string;
}

/**
 * Reads an interrupted run back from its trace DB. Refuses (exit 2, naming the fix) a DB that is not
 * a bench run, one written before plans were stored, and a complete run (unless --retry-errors).
 */
export function resumeFacts(dbPath: string, given: RunSuiteOptions): ResumeFacts {
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
    const options: RunSuiteOptions = {
      ...given,
      workloadsDir: p.workloads_dir,
      workloadNames,
      includeMarginal: true,
      provider: p.requested_provider as RunSuiteOptions['provider'],
      model: p.actual_model,
      baseline: p.baseline_model,
      seedPasses: p.seed_passes,
      seed: p.seed,
      temperature: p.temperature,
      dbPath,
      jsonPath: given.jsonPath,
      patternsDbPath: p.patterns_db_path,
      protocol: p.protocol,
      fingerprintVersion: p.fingerprint_version,
      embeddingProvider: p.embedding_provider ?? null,
      // The cache changes what the remaining reps' calls record, so it is part of the run's identity.
      cache: p.semantic_cache === true,
      shard: p.shard ?? null,
      passes: p.passes ? p.passes.join(',') : null,
      runId,
      resumePath: null,
    };
    return { runId, startedUs: row.created_at_us, options, warnings: runs.warnings(runId), recordingErrors: runs.recordingErrors(runId), status: status ?? 'running' };
  } finally {
    db.close();
  }
}
