import type { Database } from 'better-sqlite3';
import { SetupError } from '../errors.ts';
import { ensureTranscriptTable, saveTranscripts, type SessionTranscript } from './transcripts.ts';
import { outcomeFromScore, type RepOutcome } from '../../runtime/evaluator/gate.ts';
import type { Assertion, Check, Provenance } from '../../schemas/types/report.ts';

/** One workload rep as recorded in the trace DB, so every report number can be recomputed from the DB alone. */
export interface WorkloadRunRecord {
  id: string;
  run_id: string;
  workload: string;
  pass: string;
  rep: number;
  model: string;
  signal_strength: 'high' | 'marginal';
  session_ids: string[];
  started_at_us: number;
  ended_at_us: number;
  turns: number;
  score: number | null;
  confidence: number | null;
  /** The gated verdict (harness-and-runtime.md §5): solved iff the hidden check passed, or score ≥ 0.5 without a check. */
  outcome: RepOutcome;
  check: Check;
  assertions: Assertion[];
  error: string | null;
  /** Why the rep could not finish, as a class (harness/runner/rep-error.ts); null when it finished. */
  error_class?: string | null;
  /** What each session of the rep said and did (written to session_transcripts, not read back here). */
  transcripts?: SessionTranscript[];
  /** The rep was cut short by --max-cost or Ctrl-C (the run is then incomplete). */
  stopped_early?: boolean;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS bench_runs (
  run_id TEXT PRIMARY KEY,
  created_at_us INTEGER NOT NULL,
  provenance_json TEXT NOT NULL,
  warnings_json TEXT NOT NULL DEFAULT '[]',
  recording_errors_json TEXT NOT NULL DEFAULT '[]',
  status TEXT NOT NULL DEFAULT 'complete'
);
CREATE TABLE IF NOT EXISTS workload_runs (
  id TEXT PRIMARY KEY,
  run_id TEXT NOT NULL REFERENCES bench_runs(run_id),
  workload TEXT NOT NULL,
  pass TEXT NOT NULL,
  rep INTEGER NOT NULL,
  model TEXT NOT NULL,
  signal_strength TEXT NOT NULL,
  session_ids_json TEXT NOT NULL,
  started_at_us INTEGER NOT NULL,
  ended_at_us INTEGER NOT NULL,
  turns INTEGER NOT NULL,
  score REAL,
  confidence REAL,
  check_json TEXT,
  assertions_json TEXT NOT NULL,
  error TEXT,
  outcome TEXT,
  error_class TEXT
);
CREATE INDEX IF NOT EXISTS idx_workload_runs_run ON workload_runs(run_id, workload, pass, rep);
`;

/** The harness's own tables in the trace DB: the runs and each workload rep (spec §6). */
export class RunStore {
  /** `create: false` reads a DB as it is (analyze opens it read-only). */
  constructor(
    private readonly db: Database,
    options: { create?: boolean } = {},
  ) {
    if (options.create ?? true) {
      db.exec(SCHEMA);
      ensureTranscriptTable(db);
      addColumnIfMissing(db, 'workload_runs', 'error_class', 'TEXT');
      ensureRepKey(db);
    }
  }

  /** Records (or updates, at the end of the run) the run's provenance, warnings and accumulation-check failures. */
  saveRun(
    runId: string,
    createdAtUs: number,
    provenance: Provenance,
    notes: { warnings?: readonly string[]; recordingErrors?: readonly string[]; status?: 'complete' | 'incomplete' } = {},
  ): void {
    this.db
      .prepare(
        `INSERT INTO bench_runs (run_id, created_at_us, provenance_json, warnings_json, recording_errors_json, status) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT(run_id) DO UPDATE SET provenance_json = excluded.provenance_json, warnings_json = excluded.warnings_json,
           recording_errors_json = excluded.recording_errors_json, status = excluded.status`,
      )
      .run(runId, createdAtUs, JSON.stringify(provenance), JSON.stringify(notes.warnings ?? []), JSON.stringify(notes.recordingErrors ?? []), notes.status ?? 'complete');
  }

  /**
   * Whether the run finished, was stopped (e.g. by --max-cost), or never finished: a run is stored as
   * `running` until it is finalised, so one that was killed or crashed reads back as `interrupted`.
   */
  status(runId: string): 'complete' | 'incomplete' | 'interrupted' {
    const row = this.db.prepare('SELECT status FROM bench_runs WHERE run_id = ?').get(runId) as { status: string } | undefined;
    return row?.status === 'incomplete' ? 'incomplete' : row?.status === 'running' ? 'interrupted' : 'complete';
  }

  /** Accumulation-check failures the run recorded (benchmark.md §6.4). */
  recordingErrors(runId: string): string[] {
    const row = this.db.prepare('SELECT recording_errors_json FROM bench_runs WHERE run_id = ?').get(runId) as { recording_errors_json: string } | undefined;
    return row ? (JSON.parse(row.recording_errors_json) as string[]) : [];
  }

  /** The warnings the run recorded (sandbox missing, provider fallback...). */
  warnings(runId: string): string[] {
    const row = this.db.prepare('SELECT warnings_json FROM bench_runs WHERE run_id = ?').get(runId) as { warnings_json: string } | undefined;
    return row ? (JSON.parse(row.warnings_json) as string[]) : [];
  }

  /** Records one finished workload rep. */
  saveWorkloadRun(r: WorkloadRunRecord): void {
    this.db
      .prepare(
        `INSERT INTO workload_runs (id, run_id, workload, pass, rep, model, signal_strength, session_ids_json, started_at_us, ended_at_us, turns, score, confidence, check_json, assertions_json, error, outcome, error_class)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(r.id, r.run_id, r.workload, r.pass, r.rep, r.model, r.signal_strength, JSON.stringify(r.session_ids), r.started_at_us, r.ended_at_us, r.turns, r.score, r.confidence, r.check ? JSON.stringify(r.check) : null, JSON.stringify(r.assertions), r.error, r.outcome, r.error_class ?? null);
    if (r.transcripts) saveTranscripts(this.db, r.id, r.transcripts);
  }

  /** Run ids in the DB, oldest first. */
  runIds(): string[] {
    if (!this.hasTables()) return [];
    return (this.db.prepare('SELECT run_id FROM bench_runs ORDER BY created_at_us').all() as { run_id: string }[]).map((r) => r.run_id);
  }

  /** The stored provenance of a run. */
  provenance(runId: string): Provenance | null {
    const row = this.db.prepare('SELECT provenance_json FROM bench_runs WHERE run_id = ?').get(runId) as { provenance_json: string } | undefined;
    return row ? (JSON.parse(row.provenance_json) as Provenance) : null;
  }

  /** The workload reps of a run, in the order they are reported. */
  workloadRuns(runId: string): WorkloadRunRecord[] {
    return (this.db.prepare(WORKLOAD_RUNS_SQL).all(runId) as Record<string, unknown>[]).map((x) =>
      workloadRunRecord(x, JSON.parse(String(x.session_ids_json)), x.check_json == null ? null : JSON.parse(String(x.check_json)), JSON.parse(String(x.assertions_json))),
    );
  }

  private hasTables(): boolean {
    return this.db.prepare("SELECT 1 FROM sqlite_master WHERE type='table' AND name='bench_runs'").get() !== undefined;
  }
}

/** A run's workload_runs rows, in the order they are reported. */
export const WORKLOAD_RUNS_SQL = 'SELECT * FROM workload_runs WHERE run_id = ? ORDER BY pass, workload, rep';

/** A workload_runs row as a record, given its three JSON cells parsed (by the reader, or by the check that read them). */
export function workloadRunRecord(x: Record<string, unknown>, sessionIds: unknown, check: unknown, assertions: unknown): WorkloadRunRecord {
  return {
    id: String(x.id),
    run_id: String(x.run_id),
    workload: String(x.workload),
    pass: String(x.pass),
    rep: Number(x.rep),
    model: String(x.model),
    signal_strength: x.signal_strength as 'high' | 'marginal',
    session_ids: sessionIds as string[],
    started_at_us: Number(x.started_at_us),
    ended_at_us: Number(x.ended_at_us),
    turns: Number(x.turns),
    score: x.score == null ? null : Number(x.score),
    confidence: x.confidence == null ? null : Number(x.confidence),
    outcome: storedOutcome(x, check as Check),
    check: check as Check,
    assertions: assertions as Assertion[],
    error: x.error == null ? null : String(x.error),
    // A DB written before error classes were recorded has no column: null.
    error_class: x.error_class == null ? null : String(x.error_class),
  };
}

/** A rep's outcome as stored; a DB written before outcomes were recorded falls back to what its check and score say. */
function storedOutcome(x: Record<string, unknown>, check: Check): RepOutcome {
  if (typeof x.outcome === 'string') return x.outcome as RepOutcome;
  if (check === null) return outcomeFromScore(x.score == null ? null : Number(x.score));
  if (check.timed_out) return 'check_error';
  return check.passed ? 'solved' : 'unsolved';
}

/**
 * One row per (run, pass, workload, rep): a unique index, added to a DB written before it existed. A DB
 * that already holds two rows for one rep (two writers raced on it) is refused, naming the reps.
 */
function ensureRepKey(db: Database): void {
  try {
    db.exec('CREATE UNIQUE INDEX IF NOT EXISTS idx_workload_runs_rep_key ON workload_runs(run_id, pass, workload, rep)');
  } catch (e) {
    if (!String((e as { code?: unknown }).code ?? '').startsWith('SQLITE_CONSTRAINT')) throw e;
    const dups = db.prepare('SELECT run_id, pass, workload, rep, count(*) AS n FROM workload_runs GROUP BY run_id, pass, workload, rep HAVING n > 1').all() as { run_id: string; pass: string; workload: string; rep: number; n: number }[];
    const shown = dups.slice(0, 5).map((d) => `pass ${d.pass} ${d.workload} rep ${d.rep} (${d.n} rows, run ${d.run_id})`);
    throw new SetupError(
      `${db.name}: table workload_runs holds more than one row for ${dups.length} rep(s): ${shown.join('; ')}${dups.length > 5 ? '; …' : ''}. Two processes wrote this run at once (before runs had one writer), so its numbers cannot be trusted: run it again with a new --db-path`,
    );
  }
}

/** Adds a column an older DB lacks (CREATE TABLE IF NOT EXISTS leaves an existing table as it was). */
function addColumnIfMissing(db: Database, table: string, column: string, type: string): void {
  const cols = db.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[];
  if (!cols.some((c) => c.name === column)) db.exec(`ALTER TABLE ${table} ADD COLUMN ${column} ${type}`);
}
