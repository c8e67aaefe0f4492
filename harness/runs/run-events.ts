import { createHash } from 'node:crypto';
import type Database from 'better-sqlite3';
import { EVENT_ROW_VALUES, eventRowOf, type EventRow } from '../../runtime/analytics/event-rows.ts';

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

/**
 * One event row's part of the digest: its session, id, type and payload, each as `storage class:byte length:value`
 * (a NULL is 'null::', never dropped). concat() is one call where `||` made a new string per operand; it skips a
 * NULL as ifnull(x, '') did, so the bytes, and every digest sealed before, are the same.
 */
const ROW_BYTES = `concat(${['session_id', 'id', 'type', 'payload_json'].map((c) => `typeof(${c}), ':', octet_length(${c}), ':', ${c}`).join(', ')})`;

/**
 * One pass over every event row of the run, in order: the run's session ids as a JSON array and the digest's blob
 * (every row's ROW_BYTES, built in SQLite so 10k payloads never become JavaScript strings; NULL without events).
 */
const RUN_PASS_SQL = `${RUN_SESSIONS_CTE}
SELECT (SELECT json_group_array(id) FROM run_sessions), CAST(group_concat(${ROW_BYTES}, '') AS BLOB)
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

/** A run's sessions and the digest of its event rows, from one pass over them. */
export interface RunEventsPass {
  sessions: string[];
  /** SHA-256 (hex) over every event row of the run (ROW_BYTES in (session_id, id) order): what its seal records. */
  digest: string;
}

/** The run's sessions and the digest of every event row it holds, in one pass over its rows. */
export function runEventsPass(db: Database.Database, runId: string): RunEventsPass {
  const [sessions, blob] = db.prepare(RUN_PASS_SQL).raw().get(runId) as [string, Buffer | null];
  return { sessions: JSON.parse(sessions) as string[], digest: createHash('sha256').update(blob ?? Buffer.alloc(0)).digest('hex') };
}

/** SHA-256 (hex) over every event row of the run: what its seal records of the rows checked. */
export function runEventsDigest(db: Database.Database, runId: string): string {
  return runEventsPass(db, runId).digest;
}

/**
 * The run's event rows of the given types, by session in id order. Its sessions are found in SQL again, not
 * passed back from JavaScript: an id is matched by its bytes, which a JavaScript string need not keep.
 */
export function readRunEvents(db: Database.Database, runId: string, types: readonly string[]): Map<string, EventRow[]> {
  const only = types.map((t) => `'${t.replace(/'/g, "''")}'`).join(', ');
  const st = db.prepare(`${RUN_SESSIONS_CTE} SELECT ${EVENT_ROW_VALUES} ${RUN_EVENTS} AND +type IN (${only}) ORDER BY session_id, id`).raw();
  const out = new Map<string, EventRow[]>();
  for (const v of st.all(runId) as unknown[][]) {
    const row = eventRowOf(v);
    const list = out.get(row.session_id);
    if (list) list.push(row);
    else out.set(row.session_id, [row]);
  }
  return out;
}
