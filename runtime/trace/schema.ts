/**
 * Stamped into `PRAGMA user_version`; bump in lockstep with any breaking edit to the events table (catalog §7.5)
 * or to the contract of the tables the harness keeps beside it. 2: a rep has a unique key and a run one
 * writer (issue 22), so a bench that knows neither must not write the DB; the events table is unchanged.
 */
export const TRACE_SCHEMA_VERSION = 2;

/** Versions this code reads: 1 is read as it is and upgraded to 2 when a writer opens it. */
export const READABLE_TRACE_SCHEMA_VERSIONS: readonly number[] = [1, 2];

/**
 * The catalog §7.1 events table and its four indexes, plus a minimal sessions table so the
 * foreign key holds, with an index of sub-sessions by parent. Idempotent, so it can run against a DB the harness created first.
 */
export const TRACE_SCHEMA_SQL = `
CREATE TABLE IF NOT EXISTS sessions (
  id TEXT PRIMARY KEY,
  created_at_us INTEGER,
  workspace_hash TEXT,
  parent_session_id TEXT NULL
);

CREATE TABLE IF NOT EXISTS events (
  id TEXT PRIMARY KEY,
  timestamp_us INTEGER NOT NULL,
  session_id TEXT NOT NULL,
  turn_id TEXT,
  parent_event_id TEXT,
  type TEXT NOT NULL,
  actor TEXT NOT NULL,
  sensitivity TEXT NOT NULL,
  payload_json TEXT NOT NULL,
  FOREIGN KEY (session_id) REFERENCES sessions(id)
);

CREATE INDEX IF NOT EXISTS idx_events_session_id     ON events(session_id, id);
CREATE INDEX IF NOT EXISTS idx_events_type_timestamp ON events(type, timestamp_us);
CREATE INDEX IF NOT EXISTS idx_events_turn           ON events(turn_id);
CREATE INDEX IF NOT EXISTS idx_events_parent         ON events(parent_event_id);

-- A run's delegated sub-sessions by parent, so reading one run (analyze) does not scan every session of the DB.
-- Added without a version bump: an extra index breaks no reader, and every writer's open adds it to an older DB.
CREATE INDEX IF NOT EXISTS idx_sessions_parent ON sessions(parent_session_id) WHERE parent_session_id IS NOT NULL;
`;
