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

interface EventRow {
  id: string;
  timestamp_us: number;
  session_id: string;
  turn_id: string | null;
  parent_event_id: string | null;
  type: string;
  actor: string;
  sensitivity: string;
  payload_json: string;
}

/** The events of one session in id order. */
function sessionEvents(db: Database, sessionId: string): BusEvent[] {
  const rows = db.prepare('SELECT id, timestamp_us, session_id, turn_id, parent_event_id, type, actor, sensitivity, payload_json FROM events WHERE session_id = ? ORDER BY id').all(sessionId) as EventRow[];
  return rows.map((r) => ({
    id: r.id,
    timestamp_us: r.timestamp_us,
    session_id: r.session_id,
    turn_id: r.turn_id,
    parent_event_id: r.parent_event_id,
    type: r.type,
    actor: r.actor as BusEvent['actor'],
    sensitivity: r.sensitivity as BusEvent['sensitivity'],
    payload: JSON.parse(r.payload_json) as Record<string, unknown>,
  }));
}

/** One rep's trace read from the DB. */
export function repTrace(db: Database, record: WorkloadRunRecord): RepTrace {
  const events = record.session_ids.flatMap((id) => sessionEvents(db, id));
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
