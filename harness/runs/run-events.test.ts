import { createHash } from 'node:crypto';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EVENT_ROW_COLUMNS, PAYLOAD_TYPES } from '../../runtime/analytics/event-rows.ts';
import { createEventsFixture } from '../../runtime/analytics/events-fixture.ts';
import { readRunEvents, RUN_EVENTS, RUN_SESSIONS_CTE, runEventsDigest, runEventsPass, runSessionIds } from './run-events.ts';

/**
 * The digest as the first sealed runs computed it: every seal in a DB today holds this, so a reader's digest of
 * the same rows must be it byte for byte (else every sealed run is checked in full again).
 */
function sealedDigest(db: Database.Database, runId: string): string {
  const field = (c: string) => `typeof(${c}) || ':' || ifnull(octet_length(${c}), '') || ':' || ifnull(${c}, '')`;
  const sql = `${RUN_SESSIONS_CTE}
SELECT CAST(group_concat(${['session_id', 'id', 'type', 'payload_json'].map(field).join(' || ')}, '') AS BLOB)
FROM (SELECT session_id, id, type, payload_json ${RUN_EVENTS} ORDER BY session_id, id)`;
  const blob = db.prepare(sql).pluck().get(runId) as Buffer | null;
  return createHash('sha256')
    .update(blob ?? Buffer.alloc(0))
    .digest('hex');
}

/** A value SQLite can hold in a column without affinity: NULL, integer, real, text (NULs and any code point included) or blob. */
const sqlValue = fc.oneof(
  fc.constant(null),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.constantFrom('', '\0', 'a\0b', '{"a":1}', 'é'),
  fc.uint8Array({ maxLength: 8 }).map((b) => Buffer.from(b)),
);
const row = fc.record({ session: fc.constantFrom('s0', 's1', 's2'), id: sqlValue, type: sqlValue, payload: sqlValue });

/** A run of three sessions (s2 a sub-session of s1) over tables without column affinity, so every storage class stays as given. */
function runDb(rows: readonly { session: string; id: unknown; type: unknown; payload: unknown }[]): Database.Database {
  const db = new Database(':memory:');
  db.exec(`CREATE TABLE workload_runs (run_id, session_ids_json);
    CREATE TABLE sessions (id, parent_session_id);
    CREATE TABLE events (session_id, id, turn_id, type, payload_json);
    INSERT INTO workload_runs VALUES ('r', '["s0","s1"]'), ('other', '["x"]');
    INSERT INTO sessions VALUES ('s0', NULL), ('s1', NULL), ('s2', 's1'), ('x', NULL);
    INSERT INTO events VALUES ('x', 'e0', NULL, 'llm.call_completed', '{}');`);
  const insert = db.prepare('INSERT INTO events (session_id, id, type, payload_json) VALUES (?, ?, ?, ?)');
  for (const r of rows) insert.run(r.session, r.id, r.type, r.payload);
  return db;
}

describe("a run's events digest", () => {
  it('is the digest the sealed runs hold, for rows of any storage class, NULLs and NULs included (property)', () => {
    fc.assert(
      fc.property(fc.array(row, { maxLength: 12 }), (rows) => {
        const db = runDb(rows);
        expect(runEventsDigest(db, 'r')).toBe(sealedDigest(db, 'r'));
      }),
      { seed: 2031, numRuns: 300 },
    );
  });

  it('changes when a row of the run is changed in any field, added or removed, and not for a row of another run (property)', () => {
    fc.assert(
      fc.property(fc.array(row, { minLength: 1, maxLength: 8 }), fc.nat(), fc.constantFrom('id', 'type', 'payload_json', 'storage', 'add', 'remove'), (rows, pick, change) => {
        const db = runDb(rows);
        const before = runEventsDigest(db, 'r');
        db.exec("INSERT INTO events VALUES ('x', 'e1', NULL, 'turn.started', '{}')");
        expect(runEventsDigest(db, 'r')).toBe(before);
        const target = (db.prepare("SELECT rowid FROM events WHERE session_id <> 'x' ORDER BY rowid").pluck().all() as number[])[pick % rows.length]!;
        const column = change === 'storage' ? 'payload_json' : change;
        const value = db.prepare(`SELECT ${column === 'add' || column === 'remove' ? 'NULL' : column} FROM events WHERE rowid = ?`).pluck().get(target);
        if (change === 'add') db.prepare('INSERT INTO events (session_id, id, type, payload_json) SELECT session_id, id, type, payload_json FROM events WHERE rowid = ?').run(target);
        else if (change === 'remove') db.prepare('DELETE FROM events WHERE rowid = ?').run(target);
        // Another value of the same field, or the same bytes in another storage class (text <-> blob).
        else if (change === 'storage') db.prepare(`UPDATE events SET payload_json = CASE typeof(payload_json) WHEN 'blob' THEN CAST(payload_json AS TEXT) WHEN 'null' THEN '' ELSE CAST(payload_json AS BLOB) END WHERE rowid = ?`).run(target);
        else db.prepare(`UPDATE events SET ${column} = ? WHERE rowid = ?`).run(value === null ? '' : null, target);
        expect(runEventsDigest(db, 'r')).not.toBe(before);
      }),
      { seed: 2032, numRuns: 300 },
    );
  });

  it("comes with the run's sessions, sub-sessions included, and an empty run has the digest of nothing", () => {
    const db = runDb([]);
    const pass = runEventsPass(db, 'r');
    expect(pass.sessions.sort()).toEqual(['s0', 's1', 's2']);
    expect(pass.sessions.sort()).toEqual(runSessionIds(db, 'r').sort());
    expect(pass.digest).toBe(createHash('sha256').digest('hex'));
  });
});

describe("a run's rows of the payload types", () => {
  it("are those of the run's sessions found by their bytes: an id that is not valid UTF-8 (no JavaScript string keeps it) still finds its rows", () => {
    const db = runDb([]);
    // A session id of the bytes 's', 0xff: listed by the run, and its one row of a payload type.
    db.exec(`UPDATE workload_runs SET session_ids_json = CAST(x'5b227330222c2273ff225d' AS TEXT) WHERE run_id = 'r';
      INSERT INTO events (session_id, id, type, payload_json) VALUES (CAST(x'73ff' AS TEXT), 'e1', 'llm.call_completed', '{"input_tokens":7}')`);
    const rows = [...readRunEvents(db, 'r', PAYLOAD_TYPES).values()].flat();
    expect(rows.map((r) => [r.id, r.input_tokens])).toEqual([['e1', 7]]);
  });

  it('are the rows of those sessions and types, by session in id order, each field as the named SELECT of EVENT_ROW_COLUMNS reads it', () => {
    const f = createEventsFixture();
    f.llmCall({ session_id: 's1', model: 'm', input_tokens: 3, output_tokens: 4 });
    f.add({ type: 'turn.started', session_id: 's1', payload: {} });
    f.add({ type: 'route.decided', session_id: 's0', turn_id: 't', payload: { chosen_model: 'm', winner_index: 1, chain: [{ policy: 'a' }, { policy: 'b' }] } });
    f.add({ type: 'cache.hit', session_id: 's1', payload: { tier: 'exact', avoided_cost_usd: '0.5', served_cost_usd: '0' } });
    f.add({ type: 'cache.miss', session_id: 's0', payload: { explored: true } });
    f.add({ type: 'cache.miss', session_id: 's2', payload: { explored: false } });
    f.db.exec(`CREATE TABLE workload_runs (run_id, session_ids_json); INSERT INTO workload_runs VALUES ('r', '["s0","s1","absent"]')`);
    const rows = readRunEvents(f.db, 'r', PAYLOAD_TYPES);
    expect([...rows.keys()]).toEqual(['s0', 's1']);
    for (const [session, list] of rows) {
      expect(list.map((r) => r.id)).toEqual([...list.map((r) => r.id)].sort());
      expect(list.every((r) => r.session_id === session && PAYLOAD_TYPES.includes(r.type))).toBe(true);
    }
    const flat = [...rows.values()].flat();
    expect(flat).toHaveLength(4);
    const types = PAYLOAD_TYPES.map((t) => `'${t}'`).join(', ');
    expect(flat).toEqual(f.db.prepare(`SELECT ${EVENT_ROW_COLUMNS} FROM events WHERE session_id IN ('s0', 's1') AND type IN (${types}) ORDER BY session_id, id`).all());
    expect(flat.find((r) => r.type === 'route.decided')).toMatchObject({ policy: 'b', chosen_model: 'm', turn_id: 't', model: null });
    expect(flat.find((r) => r.type === 'llm.call_completed')).toMatchObject({ model: 'm', input_tokens: 3, output_tokens: 4, policy: null });
    expect(flat.find((r) => r.type === 'cache.miss')).toMatchObject({ explored: 1 });
    expect(flat.find((r) => r.type === 'cache.hit')).toMatchObject({ tier: 'exact', avoided_cost_usd: '0.5', served_cost_usd: '0' });
  });
});
