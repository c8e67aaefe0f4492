// Per-session query results kept for the life of one Analytics over a DB that does not change (analyze opens
// it read-only). A report asks for each rep, then each workload, pass and the whole run: every one of those
// selections re-read the same sessions' rows; with the memo each session's rows are read once per query.

/**
 * `read(ids)` returns each asked session's value (sessions without rows may be left out: they get `empty()`).
 * The memo answers a selection with its distinct sessions in ascending id order (the order SQLite walks a
 * `session_id IN (...)` list through the (session_id, id) index), reading only the sessions not kept yet.
 */
export function createSessionMemo<T>(read: (ids: string[]) => Map<string, T>, empty: () => T): (sessions: readonly string[]) => T[] {
  const kept = new Map<string, T>();
  return (sessions) => {
    // A report asks most often for one rep's one session (~670 of a nightly report's ~810 asks): no set, sort or map.
    if (sessions.length === 1) {
      const id = sessions[0]!;
      if (!kept.has(id)) {
        const got = read([id]);
        kept.set(id, got.has(id) ? got.get(id)! : empty());
      }
      return [kept.get(id)!];
    }
    const ids = [...new Set(sessions)].sort(byCodeUnits);
    let missing: string[] | null = null;
    for (const id of ids) if (!kept.has(id)) (missing ??= []).push(id);
    if (missing !== null) {
      const got = read(missing);
      // `has`, not `??`: a value that is itself null (no exact sums, say) is kept as read, not taken for "no rows".
      for (const id of missing) kept.set(id, got.has(id) ? got.get(id)! : empty());
    }
    return ids.map((id) => kept.get(id)!);
  };
}

/** Ascending by UTF-16 code units, as `<` compares strings. */
function byCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Groups rows by their `session_id` column. */
export function bySession<R extends Readonly<Record<string, unknown>>>(rows: readonly R[]): Map<string, R[]> {
  const out = new Map<string, R[]>();
  for (const r of rows) {
    const id = String(r['session_id']);
    const list = out.get(id);
    if (list) list.push(r);
    else out.set(id, [r]);
  }
  return out;
}
