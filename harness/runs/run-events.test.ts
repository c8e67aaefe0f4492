import { describe, expect, it } from 'vitest';
import { EVENT_ROW_COLUMNS, PAYLOAD_TYPES } from '../../runtime/analytics/event-rows.ts';
import { createEventsFixture } from '../../runtime/analytics/events-fixture.ts';
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
