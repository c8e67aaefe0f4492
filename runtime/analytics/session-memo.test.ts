import type Database from 'better-sqlite3';
import fc from 'fast-check';
import { Decimal } from 'decimal.js';
import { describe, expect, it, vi } from 'vitest';
import { createAnalytics, type Analytics } from './analytics.ts';
import { createEventsFixture, llmCallCompletedPayload, TEST_PRICES } from './events-fixture.ts';
import { createSessionMemo } from './session-memo.ts';
import { savingsText, UnpricedBaselineError } from './savings.ts';
import { createPriceTable } from '../pricing/price-table.ts';
import type { PriceTable } from '../pricing/rates.ts';
import { COUNTED_TYPES, EVENT_ROW_COLUMNS, PAYLOAD_TYPES, rowsBySession, type EventRow, type PreReadEvents } from './event-rows.ts';

const table = TEST_PRICES;
const MODELS = ['anthropic:claude-haiku-4-5', 'anthropic:claude-sonnet-4-6', 'local:unpriced'];
const SESSIONS = ['s0', 's1', 's2', 's3', 's4', 's5'];
const OTHER_TYPES = ['turn.started', 'llm.call_failed', 'tool.called', 'tool.failed', 'tool.input_invalid', 'cache.miss', 'cache.set', 'cache.evicted', 'session.created'];

/** One event of a random trace: a model call, a call a cache tier served, a routing decision or another type. */
const event = fc.oneof(
  fc.record({ kind: fc.constant('llm' as const), session: fc.constantFrom(...SESSIONS), model: fc.constantFrom(...MODELS), input: fc.nat(5000), output: fc.nat(2000), cached: fc.nat(3000) }),
  fc.record({ kind: fc.constant('served' as const), session: fc.constantFrom(...SESSIONS), cost: fc.constantFrom('0.000123', '0.5', '0', '1.000000001') }),
  fc.record({ kind: fc.constant('route' as const), session: fc.constantFrom(...SESSIONS), model: fc.constantFrom(...MODELS) }),
  fc.record({ kind: fc.constant('other' as const), session: fc.constantFrom(...SESSIONS), type: fc.constantFrom(...OTHER_TYPES) }),
);

/** Everything a report reads of a selection, in a form toEqual compares (Decimals as strings). */
function readAll(a: Analytics, sessions: string[]) {
  const sel = { sessions };
  const money = (s: ReturnType<Analytics['savings']>) => ({ ...s, actual_repriced_usd: s.actual_repriced_usd.toString(), baseline_repriced_usd: s.baseline_repriced_usd.toString(), savings_usd: s.savings_usd.toString(), savings_pct: s.savings_pct?.toString() ?? null });
  return {
    // Two baselines: the same sessions priced against each are two answers.
    savings: money(a.savings(sel, 'anthropic:claude-sonnet-4-6')),
    savingsHaiku: money(a.savings(sel, 'anthropic:claude-haiku-4-5')),
    // The report's text of the same figures: from the exact sums with the memo, from savings() without it.
    savingsText: a.savingsText(sel, 'anthropic:claude-sonnet-4-6'),
    counts: a.usageCounts(sel),
    cache: a.cacheEffectiveness(sel),
    decisions: a.routeDecisions(sel),
    choices: a.routeChoices(sel),
    routing: a.routing(sel),
    semantic: (({ avoided_cost_usd, served_cost_usd, ...rest }) => ({ ...rest, avoided: avoided_cost_usd.toString(), served: served_cost_usd.toString() }))(a.semanticCache(sel)),
  };
}

/** The events as a trace DB; without `routes`, a route decision is recorded as a plain turn.started. */
function fixtureOf(events: readonly (typeof event extends fc.Arbitrary<infer E> ? E : never)[], routes: boolean) {
  const f = createEventsFixture();
  for (const e of events) {
    if (e.kind === 'llm') f.llmCall({ session_id: e.session, model: e.model, input_tokens: e.input, output_tokens: e.output, cached_input_tokens: e.cached });
    else if (e.kind === 'served') f.add({ type: 'llm.call_completed', session_id: e.session, payload: { ...llmCallCompletedPayload({ model: MODELS[0]!, cost_usd: e.cost }), cache_tier: 'semantic' } });
    else if (e.kind === 'route' && routes) f.add({ type: 'route.decided', session_id: e.session, payload: { chosen_model: e.model, winner_index: 0, chain: [{ policy: 'global_default' }] } });
    else f.add({ type: e.kind === 'other' ? e.type : 'turn.started', session_id: e.session, payload: {} });
  }
  return f;
}

describe('analytics with the per-session memo', () => {
  it('answers every selection as the queries over the whole selection do, in any order of overlapping selections (property)', () => {
    fc.assert(
      fc.property(fc.array(event, { maxLength: 60 }), fc.array(fc.array(fc.constantFrom(...SESSIONS, 'absent'), { maxLength: 8 }), { minLength: 1, maxLength: 6 }), (events, selections) => {
        const f = fixtureOf(events, true);
        const plain = createAnalytics(f.db, table, { sessionMemo: false });
        const kept = createAnalytics(f.db, table, { sessionMemo: true });
        // Every selection twice: the second answer comes from the memo alone.
        for (const sessions of [...selections, ...selections]) expect(readAll(kept, sessions)).toEqual(readAll(plain, sessions));
      }),
      { seed: 2028, numRuns: 120 },
    );
  });
});

/** Cache events and decisions with several slots, beside the events above: the figures only these feed. */
const cacheOrRoute = fc.oneof(
  fc.record({ kind: fc.constant('hit' as const), session: fc.constantFrom(...SESSIONS), tier: fc.constantFrom('exact', 'semantic', 'intermediate'), avoided: fc.constantFrom('0.000123', '0.5', '1.000000001'), served: fc.constantFrom('0', '0.00002') }),
  fc.record({ kind: fc.constant('miss' as const), session: fc.constantFrom(...SESSIONS), explored: fc.boolean() }),
  fc.record({ kind: fc.constant('decision' as const), session: fc.constantFrom(...SESSIONS), model: fc.constantFrom(...MODELS), winner: fc.nat(3), policies: fc.array(fc.constantFrom('global_default', 'per_message_override', 'pattern_store', 'task_rule'), { minLength: 1, maxLength: 3 }) }),
);

/**
 * The fixture's rows of `sessions` (of `types`, or of every type), as analyze hands analytics a run's rows; with
 * `counted`, also each session's count per counted type, as analyze's events pass hands them over.
 */
function preRead(db: Database.Database, sessions: readonly string[], types: readonly string[] | null, counted = false): PreReadEvents {
  const rows = db.prepare(`SELECT ${EVENT_ROW_COLUMNS} FROM events ORDER BY session_id, id`).all() as EventRow[];
  const read: PreReadEvents = { sessions: new Set(sessions), types: types && new Set(types), rows: rowsBySession(rows.filter((r) => sessions.includes(r.session_id) && (types === null || types.includes(r.type)))) };
  if (!counted) return read;
  const counts = new Map<string, Map<string, number>>();
  for (const r of rows)
    if (sessions.includes(r.session_id) && COUNTED_TYPES.includes(r.type)) {
      const m = counts.get(r.session_id) ?? new Map<string, number>();
      counts.set(r.session_id, m.set(r.type, (m.get(r.type) ?? 0) + 1));
    }
  return { ...read, counts };
}

describe('analytics over pre-read rows', () => {
  it('gives every figure, key order included, as the queries do; sessions, or types, outside the rows are read from the DB (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(event, cacheOrRoute), { maxLength: 60 }),
        fc.array(fc.array(fc.constantFrom(...SESSIONS, 'absent'), { maxLength: 8 }), { minLength: 1, maxLength: 6 }),
        fc.subarray(SESSIONS),
        fc.option(fc.subarray([...PAYLOAD_TYPES, 'turn.started'])),
        fc.boolean(),
        (events, selections, held, types, counted) => {
          const f = fixtureOf(
            events.filter((e) => e.kind !== 'hit' && e.kind !== 'miss' && e.kind !== 'decision'),
            true,
          );
          for (const e of events) {
            if (e.kind === 'hit') f.add({ type: 'cache.hit', session_id: e.session, payload: { tier: e.tier, avoided_cost_usd: e.avoided, served_cost_usd: e.served } });
            else if (e.kind === 'miss') f.add({ type: 'cache.miss', session_id: e.session, payload: { tier: 'semantic', explored: e.explored } });
            else if (e.kind === 'decision') f.add({ type: 'route.decided', session_id: e.session, turn_id: `t_${e.winner}`, payload: { chosen_model: e.model, winner_index: e.winner, chain: e.policies.map((policy) => ({ policy })) } });
          }
          const plain = createAnalytics(f.db, table, { sessionMemo: false });
          const fromRows = createAnalytics(f.db, table, { sessionMemo: true, events: preRead(f.db, held, types, counted) });
          for (const sessions of [...selections, ...selections]) expect(JSON.stringify(readAll(fromRows, sessions))).toBe(JSON.stringify(readAll(plain, sessions)));
          // The choices, read without parsing a decision, are what the parsed decisions say.
          for (const a of [plain, fromRows])
            for (const sessions of selections)
              expect(a.routeChoices({ sessions })).toEqual(
                a.routeDecisions({ sessions }).map((d) => ({ session_id: d.session_id, turn_id: d.turn_id, policy: d.decision.chain[d.decision.winner_index]?.policy ?? null, chosen_model: d.decision.chosen_model })),
              );
        },
      ),
      { seed: 2030, numRuns: 150 },
    );
  });

  it("reads nothing for the sessions the rows hold, every type read, but the decisions' payloads, by rowid", () => {
    const f = createEventsFixture();
    f.llmCall({ session_id: 's0', model: MODELS[0]!, input_tokens: 10 });
    f.add({ type: 'route.decided', session_id: 's0', payload: { chosen_model: MODELS[0], winner_index: 0, chain: [{ policy: 'global_default' }] } });
    const expected = JSON.stringify(readAll(createAnalytics(f.db, table, { sessionMemo: false }), ['s0']));
    const events = preRead(f.db, ['s0', 's1'], null);
    const prepared: string[] = [];
    const prepare = f.db.prepare.bind(f.db);
    f.db.prepare = ((sql: string) => (prepared.push(sql), prepare(sql))) as typeof f.db.prepare;
    const fromRows = createAnalytics(f.db, table, { sessionMemo: true, events });
    expect(JSON.stringify(readAll(fromRows, ['s0']))).toBe(expected);
    // A decision's payload is not pre-read (a forced arm's are never parsed): the one query of events reads it by rowid.
    expect(prepared.filter((sql) => /\bevents\b/.test(sql))).toEqual(['SELECT rowid, payload_json FROM events WHERE rowid IN (SELECT value FROM json_each(?))']);

    // Rows read from another snapshot than the DB now holds (reportFromDb reads in one transaction): said, not a JSON error.
    f.db.prepare = prepare;
    f.db.exec("DELETE FROM events WHERE type = 'route.decided'");
    expect(() => createAnalytics(f.db, table, { sessionMemo: true, events }).routeDecisions({ sessions: ['s0'] })).toThrow(/route\.decided row \d+ \(.+\) is no longer in the trace DB/);
  });
});

/** The SQL of every statement `db` prepares from now on, in order. */
function preparedSql(db: Database.Database): string[] {
  const sql: string[] = [];
  const prepare = db.prepare.bind(db);
  db.prepare = ((source: string) => (sql.push(source), prepare(source))) as typeof db.prepare;
  return sql;
}

describe('type counts over pre-read rows', () => {
  it('count from the rows the types they hold, and ask SQL for the other counted types only', () => {
    const f = createEventsFixture();
    f.llmCall({ session_id: 's0', model: MODELS[0]!, input_tokens: 10 });
    f.add({ type: 'turn.started', session_id: 's0', payload: {} });
    f.add({ type: 'tool.called', session_id: 's0', payload: {} });
    f.add({ type: 'session.created', session_id: 's0', payload: {} });
    const expected = readAll(createAnalytics(f.db, table, { sessionMemo: false }), ['s0']).counts;
    const sql = preparedSql(f.db);
    const fromRows = createAnalytics(f.db, table, { sessionMemo: true, events: preRead(f.db, ['s0'], [...PAYLOAD_TYPES]) });
    expect(fromRows.usageCounts({ sessions: ['s0'] })).toEqual(expected);
    const counts = sql.filter((q) => /COUNT\(\*\)/.test(q));
    // One count query, of the session's rows of the counted types the rows lack: not of every row of every type.
    expect(counts).toHaveLength(1);
    expect(counts[0]).toMatch(/\+type IN \('turn\.started', 'llm\.call_failed', 'tool\.called', 'tool\.failed', 'tool\.input_invalid', 'cache\.set', 'cache\.evicted'\)/);
  });
});

describe('type counts handed over with the rows', () => {
  it('answer every counted type of the sessions they cover, with no count query; sessions outside them are counted in SQL', () => {
    const f = createEventsFixture();
    f.llmCall({ session_id: 's0', model: MODELS[0]!, input_tokens: 10 });
    f.add({ type: 'turn.started', session_id: 's0', payload: {} });
    f.add({ type: 'tool.called', session_id: 's0', payload: {} });
    f.add({ type: 'cache.set', session_id: 's0', payload: {} });
    f.add({ type: 'session.created', session_id: 's0', payload: {} });
    f.add({ type: 'tool.failed', session_id: 's1', payload: {} });
    const plain = createAnalytics(f.db, table, { sessionMemo: false });
    const expected = { s0: plain.usageCounts({ sessions: ['s0'] }), both: plain.usageCounts({ sessions: ['s0', 's1'] }) };
    const sql = preparedSql(f.db);
    const fromRows = createAnalytics(f.db, table, { sessionMemo: true, events: preRead(f.db, ['s0'], [...PAYLOAD_TYPES], true) });
    expect(fromRows.usageCounts({ sessions: ['s0'] })).toEqual(expected.s0);
    expect(sql.filter((q) => /COUNT\(\*\)/.test(q))).toEqual([]);
    // s1 is not among the sessions read: its counts come from SQL, of every counted type.
    expect(fromRows.usageCounts({ sessions: ['s0', 's1'] })).toEqual(expected.both);
    expect(sql.filter((q) => /COUNT\(\*\)/.test(q))).toHaveLength(1);
  });
});

describe('Analytics.prefetch', () => {
  it('reads the rows of the per-rep figures (savings, usage counts) in one go: afterwards a selection of those sessions reads nothing and answers as before (property)', () => {
    fc.assert(
      fc.property(fc.array(event, { maxLength: 60 }), fc.array(fc.array(fc.constantFrom(...SESSIONS, 'absent'), { maxLength: 8 }), { minLength: 1, maxLength: 6 }), (events, selections) => {
        const f = fixtureOf(events, false);
        const plain = createAnalytics(f.db, table, { sessionMemo: false });
        const perRep = (a: Analytics, sessions: string[]) => {
          const s = a.savings({ sessions }, 'anthropic:claude-sonnet-4-6');
          return { counts: a.usageCounts({ sessions }), actual: s.actual_repriced_usd.toString(), baseline: s.baseline_repriced_usd.toString(), rows: s.rows_total, unpriced: s.rows_missing_from_price_table };
        };
        const expected = selections.map((sessions) => perRep(plain, sessions));
        const kept = createAnalytics(f.db, table, { sessionMemo: true });
        kept.prefetch([...new Set(selections.flat())]);
        // A query now would throw: the per-rep figures must come from the memo alone.
        f.db.close();
        expect(selections.map((sessions) => perRep(kept, sessions))).toEqual(expected);
      }),
      { seed: 2029, numRuns: 80 },
    );
  });

  it('does nothing without the memo (each selection reads its own rows)', () => {
    const f = createEventsFixture();
    f.llmCall({ session_id: 's0', model: MODELS[0]!, input_tokens: 10 });
    const plain = createAnalytics(f.db, table, { sessionMemo: false });
    plain.prefetch(['s0']);
    f.llmCall({ session_id: 's0', model: MODELS[0]!, input_tokens: 5 });
    expect(plain.savings({ sessions: ['s0'] }, 'anthropic:claude-sonnet-4-6').rows_total).toBe(2);
    expect(plain.usageCounts({ sessions: ['s0'] }).llm_calls).toBe(2);
  });
});

describe('savings with the memo: each session priced once', () => {
  /** `t` counting its rates() calls: every pricing of a group asks for its model's rates and the baseline's. */
  const counting = (t: PriceTable) => {
    const calls = { n: 0 };
    return { calls, table: { ...t, rates: (m: string) => (calls.n++, t.rates(m)) } satisfies PriceTable };
  };

  it('prices each session once per baseline, however many selections hold it: a selection adds its sessions\' exact sums', () => {
    const f = createEventsFixture();
    for (const [i, s] of SESSIONS.entries()) {
      f.llmCall({ session_id: s, model: MODELS[i % 2]!, input_tokens: 1000 + i, output_tokens: 200 * i, cached_input_tokens: 7 * i });
      f.llmCall({ session_id: s, model: MODELS[(i + 1) % 3]!, input_tokens: 3 * i, output_tokens: 11 });
    }
    const plain = createAnalytics(f.db, table, { sessionMemo: false });
    const { calls, table: t } = counting(table);
    const kept = createAnalytics(f.db, t, { sessionMemo: true });
    // Every non-empty subset of the sessions: 63 selections, each a rep, a workload or a pass of some report.
    const subsets = Array.from({ length: 2 ** SESSIONS.length - 1 }, (_, k) => SESSIONS.filter((_, i) => (k + 1) & (2 ** i)));
    for (const sessions of subsets)
      for (const baseline of ['anthropic:claude-sonnet-4-6', 'anthropic:claude-haiku-4-5']) {
        const a = kept.savings({ sessions }, baseline);
        const b = plain.savings({ sessions }, baseline);
        expect([a.actual_repriced_usd, a.baseline_repriced_usd, a.savings_usd, a.savings_pct].map(String)).toEqual([b.actual_repriced_usd, b.baseline_repriced_usd, b.savings_usd, b.savings_pct].map(String));
        expect([a.rows_total, a.rows_missing_from_price_table]).toEqual([b.rows_total, b.rows_missing_from_price_table]);
      }
    // The table's models once (the common power of ten), then per baseline each session's baseline and groups'
    // models: 3 + 2 × 6 × 3, where pricing every selection anew asked 126 × 3.
    expect(calls.n).toBeLessThanOrEqual(3 + 2 * SESSIONS.length * 3);
  });

  it('writes a selection\'s savings as text without making a Decimal where the exact sums answer it', () => {
    const f = createEventsFixture();
    f.llmCall({ session_id: 's0', model: MODELS[0]!, input_tokens: 1234, output_tokens: 56, cached_input_tokens: 7 });
    f.llmCall({ session_id: 's1', model: MODELS[1]!, input_tokens: 99, output_tokens: 1 });
    const a = createAnalytics(f.db, table, { sessionMemo: true });
    a.prefetch(['s0', 's1']);
    const expected = ['s0', 's1'].map((s) => savingsText(a.savings({ sessions: [s] }, MODELS[1]!)));
    const printed = vi.spyOn(Decimal.prototype, 'toString');
    try {
      expect(['s0', 's1'].map((s) => a.savingsText({ sessions: [s] }, MODELS[1]!))).toEqual(expected);
      expect(printed).not.toHaveBeenCalled();
    } finally {
      printed.mockRestore();
    }
  });

  it('refuses a baseline the table does not price, as the queries do (the exact sums have none to add)', () => {
    const f = createEventsFixture();
    f.llmCall({ session_id: 's0', model: MODELS[0]!, input_tokens: 10 });
    for (const sessionMemo of [false, true]) {
      const a = createAnalytics(f.db, table, { sessionMemo });
      a.prefetch(['s0']);
      expect(() => a.savings({ sessions: ['s0'] }, 'local:unpriced'), `sessionMemo: ${sessionMemo}`).toThrow(UnpricedBaselineError);
      expect(() => a.savingsText({ sessions: ['s0'] }, 'local:unpriced'), `sessionMemo: ${sessionMemo}`).toThrow(UnpricedBaselineError);
    }
  });

  it('answers as the queries do where the sums pass Decimal\'s precision (fine rates, huge token counts) (property)', () => {
    const rate = fc.tuple(fc.integer({ min: 0, max: 10_000_000 }), fc.integer({ min: 0, max: 6 })).map(([n, d]) => String(n / 10 ** d));
    const rates = fc.record({ input: rate, output: rate, cache_read: rate, cache_write: rate });
    const call = fc.record({ session: fc.constantFrom(...SESSIONS), model: fc.constantFrom(...MODELS), input: fc.nat(2 ** 40), output: fc.nat(2 ** 40), cached: fc.nat(2 ** 40) });
    fc.assert(
      fc.property(rates, rates, fc.array(call, { maxLength: 12 }), fc.array(fc.subarray(SESSIONS), { minLength: 1, maxLength: 6 }), (haiku, sonnet, calls, selections) => {
        const fine = createPriceTable({ version: 'fine-1', currency: 'USD', unit: 'per_million_tokens', models: { [MODELS[0]!]: haiku, [MODELS[1]!]: sonnet } });
        const f = createEventsFixture();
        for (const c of calls) f.llmCall({ session_id: c.session, model: c.model, input_tokens: c.input, output_tokens: c.output, cached_input_tokens: c.cached });
        const plain = createAnalytics(f.db, fine, { sessionMemo: false });
        const kept = createAnalytics(f.db, fine, { sessionMemo: true });
        for (const sessions of selections) {
          const k = readAll(kept, sessions);
          expect(JSON.stringify(k.savings)).toBe(JSON.stringify(readAll(plain, sessions).savings));
          expect(JSON.stringify(k.savingsText)).toBe(JSON.stringify(k.savings));
        }
      }),
      { seed: 2034, numRuns: 150 },
    );
  });
});

/** A memo whose read answers a session's id in capitals, except 'none', which it leaves out; with the reads it made. */
function upperMemo() {
  const asked: string[][] = [];
  const memo = createSessionMemo(
    (ids) => {
      asked.push(ids);
      return new Map(ids.filter((id) => id !== 'none').map((id) => [id, id.toUpperCase()]));
    },
    () => '-',
  );
  return { memo, asked };
}

describe('createSessionMemo', () => {
  it('reads each session once, and answers distinct sessions in ascending order', () => {
    const { memo, asked } = upperMemo();
    expect(memo(['b', 'a', 'b'])).toEqual(['A', 'B']);
    expect(memo(['c', 'a', 'none'])).toEqual(['A', 'C', '-']);
    expect(memo(['none', 'c'])).toEqual(['C', '-']);
    expect(asked).toEqual([['a', 'b'], ['c', 'none']]);
  });

  it('keeps a value read as null as null: only a session the read left out gets the empty value', () => {
    const memo = createSessionMemo((ids) => new Map(ids.filter((id) => id !== 'none').map((id) => [id, id === 'n' ? null : id])), (): string | null => '-');
    // Ascending ids: n (read as null), none (left out by the read), x.
    expect(memo(['n', 'x', 'none'])).toEqual([null, '-', 'x']);
    expect(memo(['n'])).toEqual([null]);
  });

  it('answers a selection of one session as any other: read once, then kept; absent, the empty value', () => {
    const { memo, asked } = upperMemo();
    expect(memo(['b'])).toEqual(['B']);
    expect(memo(['b'])).toEqual(['B']);
    expect(memo(['none'])).toEqual(['-']);
    expect(memo(['b', 'a', 'none'])).toEqual(['A', 'B', '-']);
    expect(memo([])).toEqual([]);
    expect(asked).toEqual([['b'], ['none'], ['a']]);
  });
});
