import { sessionEventsOf } from '../../runtime/trace/index.ts';
import type { Database } from 'better-sqlite3';
import type { BusEvent } from '../../runtime/events/index.ts';
import type { Message } from '../../runtime/types/content.ts';
import type { Provenance } from '../../schemas/types/report.ts';
import { SetupError } from '../errors.ts';
import { runIdsOf } from '../report/report-from-db.ts';
import { RunStore, type WorkloadRunRecord } from '../runs/run-store.ts';
import { loadTranscripts } from '../runs/transcripts.ts';

/** One rep as the exports read it: its row, every event of its sessions, and (when stored) what was said. */
export interface RepTrace {
  record: WorkloadRunRecord;
  /** Events of every session of the rep (main first, then workers), each session in id order. */
  events: readonly BusEvent[];
  /** Transcripts by session id; empty for DBs written before transcripts were kept. */
  transcripts: ReadonlyMap<string, readonly Message[]>;
}

/** A run as the exports read it. */
export interface RunTrace {
  runId: string;
  createdAtUs: number;
  provenance: Provenance | null;
  reps: RepTrace[];
}

/** One rep's trace read from the DB. */
export function repTrace(db: Database, record: WorkloadRunRecord): RepTrace {
  const events = record.session_ids.flatMap((id) => sessionEventsOf(db, id));
  const transcripts = new Map(loadTranscripts(db, record.session_ids).map((t) => [t.session_id, t.messages]));
  return { record, events, transcripts };
}

/**
 * The runs of a trace DB to export: the one asked for, or every run in the DB (oldest first).
 * An unknown run id is a SetupError naming the DB and the runs it holds.
 */
export function readRunTraces(db: Database, path: string, runId: string | null): RunTrace[] {
  const ids = runIdsOf(db, path);
  if (runId !== null && !ids.includes(runId)) throw new SetupError(`${path}: no run '${runId}'; runs: ${ids.join(', ')} (pick one with --run)`);
  const runs = new RunStore(db, { create: false });
  return (runId === null ? ids : [runId]).map((id) => {
    const row = db.prepare('SELECT created_at_us FROM bench_runs WHERE run_id = ?').get(id) as { created_at_us: number };
    return { runId: id, createdAtUs: row.created_at_us, provenance: runs.provenance(id), reps: runs.workloadRuns(id).map((r) => repTrace(db, r)) };
  });
}
