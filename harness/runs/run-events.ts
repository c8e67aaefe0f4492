import { createHash } from 'node:crypto';
import type Database from 'better-sqlite3';
import { EVENT_ROW_COLUMNS, type EventRow } from '../../runtime/analytics/event-rows.ts';

/**
 * The sessions of one run: those its reps list and their sub-sessions (delegated workers). A run's events are
 * found through them and the (session_id, id) index, so reading a run does not read the rest of the DB.
 */
export const RUN_SESSIONS_CTE = `
WITH RECURSIVE run_sessions(id) AS (
  SELECT value FROM workload_runs, json_each(workload_runs.session_ids_json) WHERE workload_runs.run_id = ?
  UNION SELECT sessions.id FROM sessions JOIN run_sessions ON sessions.parent_session_id = run_sessions.id
)`;

/** Ordered by (session_id, id), which the index gives without a sort, so the order never depends on the plan. */
export const RUN_EVENTS = 'FROM events WHERE session_id IN (SELECT id FROM run_sessions)';

/** A column as `storage class:byte length:value`; a NULL is 'null::' (never dropped, as a NULL inside `||` would drop its row). */
const field = (column: string) => `typeof(${column}) || ':' || ifnull(octet_length(${column}), '') || ':' || ifnull(${column}, '')`;

/**
 * One blob of every event row of the run, in order: each row's session, id, type and payload, each with its
 * storage class and length in bytes, so no two row lists share an encoding. Built in SQLite, so hashing a run
 * does not turn 10k payloads into JavaScript strings (that was most of reading them).
 */
const RUN_EVENTS_BLOB_SQL = `${RUN_SESSIONS_CTE}
SELECT CAST(group_concat(${['session_id', 'id', 'type', 'payload_json'].map(field).join(' || ')}, '') AS BLOB)
FROM (SELECT session_id, id, type, payload_json ${RUN_EVENTS} ORDER BY session_id, id)`;

/** True when the DB has the tables a run's events are found through. */
export function hasRunEventTables(db: Database.Database): boolean {
  const n = (db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name IN ('events', 'sessions', 'workload_runs')").get() as { n: number }).n;
  return n === 3;
}

/** The ids of the run's sessions, sub-sessions included. */
export function runSessionIds(db: Database.Database, runId: string): string[] {
  return db.prepare(`${RUN_SESSIONS_CTE} SELECT id FROM run_sessions`).pluck().all(runId) as string[];
}

/** The run's event rows (of `types` only, when given), by session in id order. */
export function readRunEvents(db: Database.Database, runId: string, types?: readonly string[]): EventRow[] {
  const only = types ? ` AND +type IN (${types.map((t) => `'${t.replace(/'/g, "''")}'`).join(', ')})` : '';
  return db.prepare(`${RUN_SESSIONS_CTE} SELECT ${EVENT_ROW_COLUMNS} ${RUN_EVENTS}${only} ORDER BY session_id, id`).all(runId) as EventRow[];
}

/** SHA-256 (hex) over every event row of the run (RUN_EVENTS_BLOB_SQL): what its seal records of the rows checked. */
export function runEventsDigest(db: Database.Database, runId: string): string {
  const blob = db.prepare(RUN_EVENTS_BLOB_SQL).pluck().get(runId) as Buffer | null;
  return createHash('sha256')
    .update(blob ?? Buffer.alloc(0))
    .digest('hex');
}
