import { closeSync, mkdtempSync, openSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSystemClock } from '../core/clock.ts';
import { createMemoryLogger } from '../core/logger.ts';
import { createEventBus, type BusEvent, type KnownEventType } from '../events/index.ts';
import { sampleDraft, samplePayloads } from '../events/test-support/sample-payloads.ts';
import { openTraceStore, TraceStoreError, type TraceStore } from './index.ts';

let dir: string;
const stores: TraceStore[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'metis-trace-'));
});
afterEach(() => {
  for (const s of stores.splice(0)) s.close();
  rmSync(dir, { recursive: true, force: true });
});

function open(name = 'trace.db', batchRows?: number): TraceStore {
  const store = openTraceStore(join(dir, name), { logger: createMemoryLogger(), ...(batchRows ? { batchRows } : {}) });
  stores.push(store);
  return store;
}

/** A bus with the store's writer subscribed, as the runner wires it. */
function wired(store: TraceStore) {
  const bus = createEventBus({ mode: 'strict', logger: createMemoryLogger(), clock: createSystemClock() });
  bus.subscribe(store.writer());
  return bus;
}

/** A fixture session touching every catalog type, with parent pointers like a real turn. */
function emitSession(bus: ReturnType<typeof wired>, sessionId: string): BusEvent[] {
  const out: BusEvent[] = [];
  let parent: string | null = null;
  for (const type of Object.keys(samplePayloads) as KnownEventType[]) {
    const e: BusEvent = bus.emit(sampleDraft(type, { session_id: sessionId, turn_id: type.startsWith('session') ? null : 'turn_1', parent_event_id: parent }));
    parent = e.id;
    out.push(e);
  }
  return out;
}

describe('opening', () => {
  it('creates the schema with user_version 2, WAL, synchronous=NORMAL, foreign keys and the four indexes', () => {
    const db = open().database;
    expect(db.pragma('user_version', { simple: true })).toBe(2);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('synchronous', { simple: true })).toBe(1); // NORMAL
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    const indexes = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'events' AND name LIKE 'idx_%'").all() as { name: string }[]).map((r) => r.name);
    expect(indexes.sort()).toEqual(['idx_events_parent', 'idx_events_session_id', 'idx_events_turn', 'idx_events_type_timestamp']);
    const cols = (db.prepare('PRAGMA table_info(events)').all() as { name: string }[]).map((c) => c.name);
    expect(cols).toEqual(['id', 'timestamp_us', 'session_id', 'turn_id', 'parent_event_id', 'type', 'actor', 'sensitivity', 'payload_json']);
  });

  it('refuses a file that is not SQLite, naming the file', () => {
    const path = join(dir, 'notes.db');
    writeFileSync(path, 'these are my notes, not a database\n'.repeat(10));
    expect(() => openTraceStore(path, { logger: createMemoryLogger() })).toThrow(TraceStoreError);
    expect(() => openTraceStore(path, { logger: createMemoryLogger() })).toThrow(`${path}: is not a SQLite database`);
  });

  it('refuses a DB stamped with another schema version, naming both versions', () => {
    const path = join(dir, 'future.db');
    const raw = new Database(path);
    raw.pragma('user_version = 3');
    raw.close();
    expect(() => openTraceStore(path, { logger: createMemoryLogger() })).toThrow(`${path}: trace schema version 3, but this Metis bench reads versions 1 and 2 (and writes 2)`);
  });

  it('reads a version-1 DB as it is and upgrades it to 2 when it opens it to write (the events table did not change)', () => {
    const path = join(dir, 'v1.db');
    const first = openTraceStore(path, { logger: createMemoryLogger() });
    first.close();
    const raw = new Database(path);
    raw.pragma('user_version = 1');
    raw.close();
    const again = openTraceStore(path, { logger: createMemoryLogger() });
    expect(again.database.pragma('user_version', { simple: true })).toBe(2);
    again.close();
  });

  it('indexes sub-sessions by parent, and adds that index to a DB written before it when a writer opens it', () => {
    const path = join(dir, 'older.db');
    openTraceStore(path, { logger: createMemoryLogger() }).close();
    const raw = new Database(path);
    raw.exec('DROP INDEX idx_sessions_parent');
    raw.close();
    const again = open('older.db');
    const db = again.database;
    expect(db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'sessions' AND name LIKE 'idx_%'").pluck().all()).toEqual(['idx_sessions_parent']);
    expect(db.pragma('user_version', { simple: true })).toBe(2);
    // The recursive step of a run's session tree searches the index instead of building one over every session.
    const plan = db.prepare('EXPLAIN QUERY PLAN WITH RECURSIVE t(id) AS (SELECT ? UNION SELECT s.id FROM sessions s JOIN t ON s.parent_session_id = t.id) SELECT id FROM t').all('s1') as { detail: string }[];
    expect(plan.map((r) => r.detail).join('\n')).toMatch(/SEARCH s USING (COVERING )?INDEX idx_sessions_parent \(parent_session_id=\?\)/);
  });

  it('refuses a DB with corrupt pages, naming the file and what to do, before writing to it', () => {
    const path = join(dir, 'damaged.db');
    const store = openTraceStore(path, { logger: createMemoryLogger() });
    store.close();
    const size = statSync(path).size;
    expect(size).toBeGreaterThan(4096);
    const fd = openSync(path, 'r+');
    for (let off = 4096; off < size; off += 4096) writeSync(fd, Buffer.alloc(4096, 0xab), 0, 4096, off);
    closeSync(fd);
    expect(() => openTraceStore(path, { logger: createMemoryLogger() })).toThrow(TraceStoreError);
    expect(() => openTraceStore(path, { logger: createMemoryLogger() })).toThrow(/the trace DB is damaged .*Restore it from a copy/);
  });

  it('reopens its own DB and adopts a fresh SQLite file (user_version 0) the harness created first', () => {
    const path = join(dir, 'shared.db');
    const raw = new Database(path);
    raw.exec('CREATE TABLE workload_runs (run_id TEXT PRIMARY KEY)');
    raw.close();
    open('shared.db').close();
    const again = open('shared.db');
    expect(again.database.pragma('user_version', { simple: true })).toBe(2);
    expect(again.database.prepare('SELECT count(*) AS n FROM workload_runs').get()).toEqual({ n: 0 });
  });
});

describe('writing and replay (catalog §9.1 test 7)', () => {
  it('replays a session deep-equal to what was emitted, in order, across a reopen', async () => {
    const store = open();
    const bus = wired(store);
    const a = emitSession(bus, 'sess_A');
    const b = emitSession(bus, 'sess_B');
    await bus.drain();
    expect(store.replay('sess_A')).toEqual(a);
    expect(store.replay('sess_B')).toEqual(b);
    store.close();
    const reopened = open();
    expect(reopened.replay('sess_A')).toEqual(a);
    expect(reopened.replay('sess_A', a[4]!.id)).toEqual(a.slice(5));
    expect(reopened.replay('sess_A', a.at(-1)!.id)).toEqual([]);
  });

  it('commits at the end of each dispatch cycle, visible to another connection without flush()', async () => {
    const store = open();
    const bus = wired(store);
    emitSession(bus, 'sess_A');
    await bus.drain();
    const reader = new Database(store.path, { readonly: true });
    try {
      expect(reader.prepare('SELECT count(*) AS n FROM events').get()).toEqual({ n: Object.keys(samplePayloads).length });
    } finally {
      reader.close();
    }
  });

  it('commits every batchRows rows within a cycle', () => {
    const store = open('batched.db', 3);
    const writer = store.writer();
    const bus = createEventBus({ mode: 'strict', logger: createMemoryLogger(), clock: createSystemClock() });
    const events = Array.from({ length: 7 }, () => bus.emit(sampleDraft('session.ended')));
    for (const e of events) void writer.handler(e);
    const reader = new Database(store.path, { readonly: true });
    try {
      expect(reader.prepare('SELECT count(*) AS n FROM events').get()).toEqual({ n: 6 });
      store.flush();
      expect(reader.prepare('SELECT count(*) AS n FROM events').get()).toEqual({ n: 7 });
    } finally {
      reader.close();
    }
  });

  it('keeps the sessions foreign key: a session row per session, workspace hash from session.created', async () => {
    const store = open();
    const bus = wired(store);
    bus.emit(sampleDraft('turn.started', { session_id: 'early' }));
    await bus.drain();
    bus.emit(sampleDraft('session.created', { session_id: 'early' }));
    bus.emit(sampleDraft('session.ended', { session_id: 'other' }));
    await bus.drain();
    const rows = store.database.prepare('SELECT id, workspace_hash FROM sessions ORDER BY id').all();
    expect(rows).toEqual([
      { id: 'early', workspace_hash: samplePayloads['session.created'].workspace_hash },
      { id: 'other', workspace_hash: null },
    ]);
    expect(store.database.pragma('foreign_key_check')).toEqual([]);
  });

  it('stores a redelivered event once (subscribers dedupe by id)', async () => {
    const store = open();
    const bus = wired(store);
    const e = bus.emit(sampleDraft('session.ended'));
    await bus.drain();
    void store.writer().handler(e);
    store.flush();
    expect(store.replay('sess_1')).toEqual([e]);
  });

  it('selects events of a type by session and half-open time window', async () => {
    const store = open();
    const bus = wired(store);
    const a = emitSession(bus, 'sess_A');
    const b = emitSession(bus, 'sess_B');
    await bus.drain();
    const done = (es: BusEvent[]) => es.filter((e) => e.type === 'llm.call_completed');
    expect(store.eventsOfType('llm.call_completed')).toEqual([...done(a), ...done(b)]);
    expect(store.eventsOfType('llm.call_completed', { sessionIds: ['sess_B'] })).toEqual(done(b));
    expect(store.eventsOfType('llm.call_completed', { sessionIds: [] })).toEqual([]);
    const [first] = done(a);
    expect(store.eventsOfType('llm.call_completed', { window: { startUs: first!.timestamp_us, endUs: first!.timestamp_us + 1 } })).toContainEqual(first);
    expect(store.eventsOfType('llm.call_completed', { window: { startUs: 0, endUs: first!.timestamp_us } })).toEqual([]);
  });

  it('a closed store refuses further writes loudly instead of dropping them silently', () => {
    const store = open();
    store.close();
    const bus = createEventBus({ mode: 'strict', logger: createMemoryLogger(), clock: createSystemClock() });
    expect(() => store.writer().handler(bus.emit(sampleDraft('session.ended')))).toThrow(/closed/);
  });
});
