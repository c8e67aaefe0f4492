import { createHash } from 'node:crypto';
import type Database from 'better-sqlite3';
import type { EventRow } from '../../runtime/analytics/event-rows.ts';

/**
 * The events of one run: those of the sessions its reps list and of their sub-sessions (delegated workers),
 * found through the (session_id, id) index so reading a run does not read the rest of the DB. Ordered by
 * (session_id, id), which that index gives without a sort, so the order never depends on the query plan.
 */
const RUN_EVENT_ROWS_SQL = `
WITH RECURSIVE run_sessions(id) AS (
  SELECT value FROM workload_runs, json_each(workload_runs.session_ids_json) WHERE workload_runs.run_id = ?
  UNION SELECT sessions.id FROM sessions JOIN run_sessions ON sessions.parent_session_id = run_sessions.id
)
SELECT id, session_id, turn_id, type, payload_json FROM events WHERE session_id IN (SELECT id FROM run_sessions) ORDER BY session_id, id`;

/** True when the DB has the tables a run's events are found through. */
export function hasRunEventTables(db: Database.Database): boolean {
  const n = (db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name IN ('events', 'sessions', 'workload_runs')").get() as { n: number }).n;
  return n === 3;
}

/** Every event row of `runId`, by session in id order. */
export function readRunEvents(db: Database.Database, runId: string): EventRow[] {
  return db.prepare(RUN_EVENT_ROWS_SQL).all(runId) as EventRow[];
}

/**
 * SHA-256 over the rows' session, id, type and payload text in their order, each field length-prefixed so
 * no two row lists share an encoding. What the run's seal records of the rows its value check passed;
 * 'not-text' (matching no seal) when a field is not text.
 */
export function runEventsDigest(rows: readonly EventRow[]): string {
  const h = createHash('sha256');
  for (const r of rows) {
    // A value of another storage class (a blob or number where text belongs) was never sealed: no digest matches it.
    if (typeof r.payload_json !== 'string' || typeof r.id !== 'string' || typeof r.session_id !== 'string' || typeof r.type !== 'string') return 'not-text';
    h.update(`${r.session_id.length}:${r.id.length}:${r.type.length}:${r.payload_json.length}:${r.session_id}${r.id}${r.type}`);
    h.update(r.payload_json);
  }
  return h.digest('hex');
}
