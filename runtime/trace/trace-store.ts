import { closeSync, openSync, readSync, statSync } from 'node:fs';
import Database from 'better-sqlite3';
import type { Logger } from '../core/logger.ts';
import type { Actor, BusEvent, Sensitivity, Subscription } from '../events/index.ts';
import { TraceStoreError } from './errors.ts';
import { assertReadableTraceDb } from './check-trace-db.ts';
import { TRACE_SCHEMA_SQL, TRACE_SCHEMA_VERSION } from './schema.ts';

/** Options for `openTraceStore`. */
export interface TraceStoreOptions {
  logger: Logger;
  /** The writer commits when this many rows are buffered, besides once per dispatch cycle. Default 1,000. */
  batchRows?: number;
}

/** A half-open time range `[startUs, endUs)` in UTC microseconds. */
export interface TimeWindow {
  startUs: number;
  endUs: number;
}

/** Narrows `eventsOfType`; absent fields match everything. */
export interface EventsOfTypeOptions {
  sessionIds?: readonly string[];
  window?: TimeWindow;
}

/** The SQLite trace store (catalog §7): the bus's persistent record and the replay source. */
export interface TraceStore {
  readonly path: string;
  /** The raw better-sqlite3 handle, for analytics and the harness's own tables. */
  readonly database: Database.Database;
  /** The fast-path, all-events subscription that persists events; the same object on every call. */
  writer(): Subscription;
  /** Commits buffered rows now. */
  flush(): void;
  /** A session's events after `afterId` (exclusive), in id order, deep-equal to what was emitted (§5.3). */
  replay(sessionId: string, afterId?: string): BusEvent[];
  /** Events of one type in id order. */
  eventsOfType(type: string, options?: EventsOfTypeOptions): BusEvent[];
  /** Flushes and closes the database. Idempotent. */
  close(): void;
}

interface PendingSession {
  createdAtUs: number;
  workspaceHash: string | null;
}

type Row = [string, number, string, string | null, string | null, string, string, string, string];

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

const SELECT_EVENTS = 'SELECT id, timestamp_us, session_id, turn_id, parent_event_id, type, actor, sensitivity, payload_json FROM events';
const SQLITE_HEADER = 'SQLite format 3\0';

function rowToEvent(r: EventRow): BusEvent {
  return {
    id: r.id,
    timestamp_us: r.timestamp_us,
    session_id: r.session_id,
    turn_id: r.turn_id,
    parent_event_id: r.parent_event_id,
    type: r.type,
    actor: r.actor as Actor,
    payload: JSON.parse(r.payload_json) as Record<string, unknown>,
    sensitivity: r.sensitivity as Sensitivity,
  };
}

/** The events of one session in id order, read from any open trace DB (a read-only one included). */
export function sessionEventsOf(db: Database.Database, sessionId: string): BusEvent[] {
  return (db.prepare(`${SELECT_EVENTS} WHERE session_id = ? ORDER BY id`).all(sessionId) as EventRow[]).map(rowToEvent);
}

/** better-sqlite3 only notices a foreign file at the first query; check the header up front for a clear message. */
function assertSqliteOrAbsent(path: string): void {
  let size: number;
  try {
    size = statSync(path).size;
  } catch {
    return; // absent: SQLite creates it
  }
  if (size === 0) return;
  const fd = openSync(path, 'r');
  try {
    const buf = Buffer.alloc(16);
    const n = readSync(fd, buf, 0, 16, 0);
    if (n < 16 || buf.toString('latin1') !== SQLITE_HEADER) {
      throw new TraceStoreError(path, 'is not a SQLite database (expected a trace DB; check --db-path)');
    }
  } finally {
    closeSync(fd);
  }
}

function openDatabase(path: string): Database.Database {
  const db = new Database(path);
  try {
    // Another schema version or corrupt pages (a DB reopened by --resume or merge): refused by name before any write.
    assertReadableTraceDb(db, path);
    // WAL + NORMAL is what keeps a row write sub-millisecond on the fast path (catalog §7.2).
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    db.transaction(() => {
      db.exec(TRACE_SCHEMA_SQL);
      db.pragma(`user_version = ${TRACE_SCHEMA_VERSION}`);
    })();
    return db;
  } catch (err) {
    db.close();
    if (err instanceof TraceStoreError) throw err;
    const code = (err as { code?: string }).code;
    if (code === 'SQLITE_NOTADB') throw new TraceStoreError(path, 'is not a SQLite database');
    throw new TraceStoreError(path, `cannot open trace store: ${(err as Error).message}`);
  }
}

/**
 * Opens (creating if needed) the trace DB at `path`: WAL, synchronous=NORMAL, user_version TRACE_SCHEMA_VERSION
 * (a version-1 DB is upgraded). Refuses a file that is not SQLite or that carries a version this code does not read.
 */
export function openTraceStore(path: string, options: TraceStoreOptions): TraceStore {
  const { logger } = options;
  const batchRows = options.batchRows ?? 1_000;
  assertSqliteOrAbsent(path);
  const db = openDatabase(path);

  const insertEvent = db.prepare(
    'INSERT OR IGNORE INTO events (id, timestamp_us, session_id, turn_id, parent_event_id, type, actor, sensitivity, payload_json) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
  );
  // The first event of a session creates its row; session.created fills the workspace hash.
  const upsertSession = db.prepare(
    'INSERT INTO sessions (id, created_at_us, workspace_hash) VALUES (?, ?, ?) ON CONFLICT(id) DO UPDATE SET workspace_hash = coalesce(excluded.workspace_hash, sessions.workspace_hash)',
  );
  // A worker session's parent is the planner that emitted its delegate.started (catalog §6.8: "via the session record").
  const setParent = db.prepare('UPDATE sessions SET parent_session_id = ? WHERE id = ?');
  const selectReplay = db.prepare<[string, string], EventRow>(`${SELECT_EVENTS} WHERE session_id = ? AND id > ? ORDER BY id`);
  // Sessions committed so far; a session is upserted only with its first batch or its session.created.
  const knownSessions = new Set<string>();

  const writeRows = db.transaction((rows: Row[], sessions: Map<string, PendingSession>, parents: Map<string, string>) => {
    for (const [sid, s] of sessions) upsertSession.run(sid, s.createdAtUs, s.workspaceHash);
    for (const row of rows) insertEvent.run(row);
    for (const [worker, parent] of parents) setParent.run(parent, worker);
  });

  let buffer: Row[] = [];
  let sessions = new Map<string, PendingSession>();
  let parents = new Map<string, string>();
  let closed = false;

  function noteSession(event: BusEvent): void {
    const sid = event.session_id;
    if (event.type === 'session.created') {
      const hash = event.payload.workspace_hash;
      const createdAtUs = sessions.get(sid)?.createdAtUs ?? event.timestamp_us;
      sessions.set(sid, { createdAtUs, workspaceHash: typeof hash === 'string' ? hash : null });
    } else if (!knownSessions.has(sid) && !sessions.has(sid)) {
      sessions.set(sid, { createdAtUs: event.timestamp_us, workspaceHash: null });
    }
    const worker = event.type === 'delegate.started' ? event.payload.worker_session_id : null;
    if (typeof worker === 'string') parents.set(worker, sid);
  }

  function flush(): void {
    if (buffer.length === 0) return;
    const rows = buffer;
    const batchSessions = sessions;
    const batchParents = parents;
    buffer = [];
    sessions = new Map();
    parents = new Map();
    try {
      writeRows(rows, batchSessions, batchParents);
    } catch (err) {
      // Keep the rows for the next flush: loss is worse than a late write (catalog §2.1).
      buffer = rows;
      sessions = batchSessions;
      parents = batchParents;
      throw new TraceStoreError(path, `writing ${rows.length} events failed: ${(err as Error).message}`);
    }
    for (const sid of batchSessions.keys()) knownSessions.add(sid);
  }

  const writer: Subscription = {
    name: 'trace-store-writer',
    filter: {},
    fast_path: true,
    handler(event) {
      if (closed) throw new TraceStoreError(path, `trace store is closed; event ${event.id} not persisted`);
      noteSession(event);
      buffer.push([
        event.id,
        event.timestamp_us,
        event.session_id,
        event.turn_id,
        event.parent_event_id,
        event.type,
        event.actor,
        event.sensitivity,
        JSON.stringify(event.payload),
      ]);
      if (buffer.length >= batchRows) flush();
    },
    onIdle: () => flush(),
  };

  function query(sql: string, params: unknown[]): BusEvent[] {
    flush();
    return (db.prepare(sql).all(...params) as EventRow[]).map(rowToEvent);
  }

  logger.log('debug', 'trace store opened', { path, schema_version: TRACE_SCHEMA_VERSION });

  return {
    path,
    database: db,
    writer: () => writer,
    flush,
    replay(sessionId, afterId = '') {
      flush();
      return selectReplay.all(sessionId, afterId).map(rowToEvent);
    },
    eventsOfType(type, opts = {}) {
      let sql = `${SELECT_EVENTS} WHERE type = ?`;
      const params: unknown[] = [type];
      if (opts.sessionIds) {
        // json_each keeps one statement shape for any number of sessions (no variable limit).
        sql += ' AND session_id IN (SELECT value FROM json_each(?))';
        params.push(JSON.stringify(opts.sessionIds));
      }
      if (opts.window) {
        sql += ' AND timestamp_us >= ? AND timestamp_us < ?';
        params.push(opts.window.startUs, opts.window.endUs);
      }
      return query(`${sql} ORDER BY id`, params);
    },
    close() {
      if (closed) return;
      try {
        flush();
      } finally {
        closed = true;
        db.close();
      }
    },
  };
}
