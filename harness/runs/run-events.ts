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

/** True when the DB has the tables a run's events are found through. */
export function hasRunEventTables(db: Database.Database): boolean {
  const n = (db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name IN ('events', 'sessions', 'workload_runs')").get() as { n: number }).n;
  return n === 3;
}

/** The ids of the run's sessions, sub-sessions included. */
export function runSessionIds(db: Database.Database, runId: string): string[] {
  return db.prepare(`${RUN_SESSIONS_CTE} SELECT id FROM run_sessions`).pluck().all(runId) as string[];
}

/** Rows of EVENT_ROW_VALUES, ordered by (session_id, id), as EventRows by session in that order. */
function bySession(values: readonly unknown[][]): Map<string, EventRow[]> {
  const out = new Map<string, EventRow[]>();
  for (const v of values) {
    const row = eventRowOf(v);
    const list = out.get(row.session_id);
    if (list) list.push(row);
    else out.set(row.session_id, [row]);
  }
  return out;
}

/**
 * The run's event rows of the given types, by session in id order. Its sessions are found in SQL again, not
 * passed back from JavaScript: an id is matched by its bytes, which a JavaScript string need not keep.
 */
export function readRunEvents(db: Database.Database, runId: string, types: readonly string[]): Map<string, EventRow[]> {
  const only = types.map((t) => `'${t.replace(/'/g, "''")}'`).join(', ');
  return bySession(db.prepare(`${RUN_SESSIONS_CTE} SELECT ${EVENT_ROW_VALUES} ${RUN_EVENTS} AND +type IN (${only}) ORDER BY session_id, id`).raw().all(runId) as unknown[][]);
}
