import { describe, expect, it } from 'vitest';
import { EVENT_ROW_COLUMNS, EVENT_ROW_VALUES, PAYLOAD_TYPES } from '../../runtime/analytics/event-rows.ts';
import { createEventsFixture } from '../../runtime/analytics/events-fixture.ts';
import fc from 'fast-check';
import { runEventsPass } from './events-digest.ts';
import { readRunEvents } from './run-events.ts';
import { runDb } from './test-support/run-events-db.ts';

describe("a run's rows of the payload types", () => {
  it("are those of the run's sessions found by their bytes: an id that is not valid UTF-8 (no JavaScript string keeps it) still finds its rows", () => {
    const db = runDb([]);
    // A session id of the bytes 's', 0xff: listed by the run, and its one row of a payload type.
    db.exec(`UPDATE workload_runs SET session_ids_json = CAST(x'5b227330222c2273ff225d' AS TEXT) WHERE run_id = 'r';
      INSERT INTO events (session_id, id, type, payload_json) VALUES (CAST(x'73ff' AS TEXT), 'e1', 'llm.call_completed', '{"input_tokens":7}')`);
    const rows = [...readRunEvents(db, 'r', PAYLOAD_TYPES).values()].flat();
    expect(rows.map((r) => [r.id, r.input_tokens])).toEqual([['e1', 7]]);
  });

  /** A run `r` of sessions s0 and s1 with a row of each payload type, a row of another type and one of an unlisted session. */
  function fixtureRun() {
    const f = createEventsFixture();
    f.llmCall({ session_id: 's1', model: 'm', input_tokens: 3, output_tokens: 4 });
    f.add({ type: 'turn.started', session_id: 's1', payload: {} });
    f.add({ type: 'route.decided', session_id: 's0', turn_id: 't', payload: { chosen_model: 'm', winner_index: 1, chain: [{ policy: 'a' }, { policy: 'b' }] } });
    f.add({ type: 'cache.hit', session_id: 's1', payload: { tier: 'exact', avoided_cost_usd: '0.5', served_cost_usd: '0' } });
    f.add({ type: 'cache.miss', session_id: 's0', payload: { explored: true } });
    f.add({ type: 'cache.miss', session_id: 's2', payload: { explored: false } });
    f.db.exec(`CREATE TABLE workload_runs (run_id, session_ids_json); INSERT INTO workload_runs VALUES ('r', '["s0","s1","absent"]')`);
    return f;
  }

  it('are the rows of those sessions and types, by session in id order, each field as the named SELECT of EVENT_ROW_COLUMNS reads it', () => {
    const f = fixtureRun();
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
    // No payload text comes with the rows: a decision comes with its rowid, by which analytics reads its payload when asked.
    const decision = flat.find((r) => r.type === 'route.decided')!;
    expect(decision.rowid).toBe(f.db.prepare('SELECT rowid FROM events WHERE id = ?').pluck().get(decision.id));
    expect(flat.filter((r) => r.type !== 'route.decided').map((r) => r.rowid)).toEqual([null, null, null]);
    expect(flat.every((r) => !('payload_json' in r))).toBe(true);
  });

  it('are read packed: a raw row holds the four plain columns and a slot per field of the type with the most (7, of llm.call_completed), not a column per field of every type (18)', () => {
    const f = fixtureRun();
    const columns = f.db.prepare(`SELECT ${EVENT_ROW_VALUES} FROM events`).columns();
    expect(columns).toHaveLength(11);
    expect(f.db.prepare(`SELECT ${EVENT_ROW_COLUMNS} FROM events`).columns()).toHaveLength(18);
  });

  it('are the rows the digest pass reads on its way, under either digest version', () => {
    const f = fixtureRun();
    for (const version of [1, 2] as const) expect([...runEventsPass(f.db, 'r', version, PAYLOAD_TYPES).rows]).toEqual([...readRunEvents(f.db, 'r', PAYLOAD_TYPES)]);
    expect(runEventsPass(f.db, 'r', 2, []).rows.size).toBe(0);
  });

  it('read by the digest pass (as JSON), are the rows readRunEvents finds: same rows, sessions, order and values (property)', () => {
    // Values that a JSON round trip could change: reals that need 17 digits, an integer past 2^53, text that must be escaped.
    const payloads = [
      '{}',
      '{"model":"m","input_tokens":3,"cost_usd":"0.1"}',
      '{"model":"m\\"\\u00e9\\n","input_tokens":9007199254740993,"output_tokens":0.30000000000000004,"cost_usd":1e-7,"cache_tier":null}',
      '{"winner_index":0,"chain":[{"policy":"p"}],"chosen_model":"m"}',
      '{"tier":"exact","explored":true,"avoided_cost_usd":123456789.12345678}',
    ];
    const event = fc.record({ session: fc.constantFrom('s0', 's1', 's2', 'x'), type: fc.constantFrom(...PAYLOAD_TYPES, 'turn.started', 'tool.called'), payload: fc.constantFrom(...payloads) });
    fc.assert(
      fc.property(fc.uniqueArray(fc.nat(999), { maxLength: 30 }), fc.array(event, { minLength: 30, maxLength: 30 }), fc.constantFrom(1 as const, 2 as const), (ids, events, version) => {
        const db = runDb(ids.map((n, k) => ({ session: events[k]!.session, id: `e${n}`, type: events[k]!.type, payload: events[k]!.payload })));
        expect([...runEventsPass(db, 'r', version, PAYLOAD_TYPES).rows]).toEqual([...readRunEvents(db, 'r', PAYLOAD_TYPES)]);
      }),
      { seed: 2034, numRuns: 200 },
    );
  });
});
