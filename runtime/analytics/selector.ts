/** An inclusive range of event timestamps, UTC microseconds. */
export interface TimeWindow {
  startUs: number;
  endUs: number;
}

/**
 * Which events an analytics query covers: a time window (absent: the whole DB) or an explicit list of
 * sessions (per-workload numbers, correct under concurrency because sessions never interleave).
 */
export type EventSelector = { window?: TimeWindow } | { sessions: readonly string[] };

/** A WHERE clause over `events` and its positional parameters. */
export interface SqlFilter {
  sql: string;
  params: unknown[];
}

/**
 * The WHERE clause for events of `types` under `selector`. Both shapes lead with the column of a §7.1
 * index — (type, timestamp_us) or (session_id, id) — so neither scans the whole table.
 */
export function selectorFilter(selector: EventSelector, types: readonly string[]): SqlFilter {
  if (types.length === 0) throw new RangeError('selectorFilter needs at least one event type');
  // Types are inlined, not bound: SQLite only uses a partial index (WHERE type = '...') for a literal.
  const literals = types.map((t) => `'${t.replace(/'/g, "''")}'`);
  const typeIn = (col: string) => (literals.length === 1 ? `${col} = ${literals[0]}` : `${col} IN (${literals.join(', ')})`);
  if ('sessions' in selector) {
    // One JSON parameter instead of one per session: no bound-variable limit, one cached statement.
    // `+type` keeps SQLite (without statistics) from scanning every row of the type instead of the sessions.
    return {
      sql: `session_id IN (SELECT value FROM json_each(?)) AND ${typeIn('+type')}`,
      params: [JSON.stringify(selector.sessions)],
    };
  }
  const typeSql = typeIn('type');
  const w = selector.window;
  if (!w) return { sql: typeSql, params: [] };
  if (!Number.isSafeInteger(w.startUs) || !Number.isSafeInteger(w.endUs) || w.startUs > w.endUs)
    throw new RangeError(`invalid window [${w.startUs}, ${w.endUs}]: need integer microseconds with start <= end`);
  return { sql: `${typeSql} AND timestamp_us BETWEEN ? AND ?`, params: [w.startUs, w.endUs] };
}
