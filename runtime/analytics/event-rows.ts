// Event rows read once by a caller that needs them anyway (analyze reads a run's rows to check their values)
// and handed to analytics, so the report's figures are summed from those rows instead of read again by SQL.

/** One row of the `events` table as analytics reads it; `payload` keeps the parsed payload once parsed. */
export interface EventRow {
  readonly id: string;
  readonly session_id: string;
  readonly turn_id: string | null;
  readonly type: string;
  readonly payload_json: string;
  payload?: unknown;
}

/** Pre-read rows by session, each session's in id order. */
export type SessionEventRows = ReadonlyMap<string, readonly EventRow[]>;

/** Rows a caller read of some sessions: every row of `types` (of every type when null) of each session in `sessions`. */
export interface PreReadEvents {
  sessions: ReadonlySet<string>;
  types: ReadonlySet<string> | null;
  /** By session, in id order; a session of `sessions` with no such row may be absent. */
  rows: SessionEventRows;
}

/** The event types whose payloads analytics reads: pre-reading these (and counting the rest in SQL) is enough. */
export const PAYLOAD_TYPES: readonly string[] = ['llm.call_completed', 'route.decided', 'cache.hit', 'cache.miss'];

/** The row's payload, parsed on first use and kept (the rows belong to one reader of a DB nobody writes). */
export function payloadOf(row: EventRow): Record<string, unknown> {
  row.payload ??= JSON.parse(row.payload_json) as unknown;
  return row.payload as Record<string, unknown>;
}

/** Groups rows ordered by (session_id, id) by session, keeping that order. */
export function rowsBySession(rows: readonly EventRow[]): Map<string, EventRow[]> {
  const out = new Map<string, EventRow[]>();
  for (const r of rows) {
    const list = out.get(r.session_id);
    if (list) list.push(r);
    else out.set(r.session_id, [r]);
  }
  return out;
}
