import Database from 'better-sqlite3';
import fc from 'fast-check';

/** A value SQLite can hold in a column without affinity: NULL, integer, real, text (NULs and any code point included) or blob. */
export const sqlValue = fc.oneof(
  fc.constant(null),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.constantFrom('', '\0', 'a\0b', '{"a":1}', 'é'),
  fc.uint8Array({ maxLength: 8 }).map((b) => Buffer.from(b)),
);

/** An event row of run `r`'s sessions (s2 a sub-session of s1), any value in its id, type and payload. */
export interface RunEventRow {
  session: string;
  id: unknown;
  type: unknown;
  payload: unknown;
}

/** Rows of the sessions of runDb's run `r`. */
export const runEventRow: fc.Arbitrary<RunEventRow> = fc.record({ session: fc.constantFrom('s0', 's1', 's2'), id: sqlValue, type: sqlValue, payload: sqlValue });

/**
 * A run `r` of three sessions (s2 a sub-session of s1) holding `rows`, beside a run `other` with one row, over
 * tables without column affinity, so every storage class stays as given; events indexed by (session_id, id) as a
 * trace DB's are, so a run's rows are read in that order.
 */
export function runDb(rows: readonly RunEventRow[]): Database.Database {
  const db = new Database(':memory:');
  db.exec(`CREATE TABLE workload_runs (run_id, session_ids_json);
    CREATE TABLE sessions (id, parent_session_id);
    CREATE TABLE events (session_id, id, turn_id, type, payload_json);
    CREATE INDEX events_session_id ON events(session_id, id);
    INSERT INTO workload_runs VALUES ('r', '["s0","s1"]'), ('other', '["x"]');
    INSERT INTO sessions VALUES ('s0', NULL), ('s1', NULL), ('s2', 's1'), ('x', NULL);
    INSERT INTO events VALUES ('x', 'e0', NULL, 'llm.call_completed', '{}');`);
  const insert = db.prepare('INSERT INTO events (session_id, id, type, payload_json) VALUES (?, ?, ?, ?)');
  for (const r of rows) insert.run(r.session, r.id, r.type, r.payload);
  return db;
}
