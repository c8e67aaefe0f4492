import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ChainEntry, PolicyName } from '../routing/route-decision.ts';
import { POLICY_NAMES } from '../routing/route-decision.ts';
import { createAnalytics } from './analytics.ts';
import { openSqliteForReading } from '../core/sqlite-reader.ts';
import { createEventsFixture, llmCallCompletedPayload, type EventsFixture, TEST_PRICES } from './events-fixture.ts';
import { computeSavings, sumSavings } from './savings.ts';

const table = TEST_PRICES;
const SONNET = 'anthropic:claude-sonnet-4-6';
const HAIKU = 'anthropic:claude-haiku-4-5';
const MINI = 'openai:gpt-5-mini';

/** Two sessions: s1 on haiku (t=100..101), s2 on gpt-5-mini plus one unpriced row (t=200..201). */
function handFixture(): EventsFixture {
  const f = createEventsFixture();
  f.llmCall({ session_id: 's1', timestamp_us: 100, model: HAIKU, input_tokens: 1000, output_tokens: 500, cached_input_tokens: 2000, cache_creation_input_tokens: 400 });
  f.llmCall({ session_id: 's1', timestamp_us: 101, model: HAIKU, input_tokens: 200, output_tokens: 100 });
  f.llmCall({ session_id: 's2', timestamp_us: 200, model: MINI, input_tokens: 3000, output_tokens: 1000, cached_input_tokens: 1000 });
  f.llmCall({ session_id: 's2', timestamp_us: 201, model: 'local:llama-3', input_tokens: 999, output_tokens: 999 });
  // Not a completed call: must not count toward savings.
  f.add({ type: 'llm.call_started', session_id: 's2', timestamp_us: 202, payload: { model: MINI, input_tokens: 10 ** 9 } });
  return f;
}

const plain = (r: ReturnType<ReturnType<typeof createAnalytics>['savings']>) => ({
  ...r,
  actual_repriced_usd: r.actual_repriced_usd.toString(),
  baseline_repriced_usd: r.baseline_repriced_usd.toString(),
  savings_usd: r.savings_usd.toString(),
  savings_pct: r.savings_pct?.toString() ?? null,
});

describe('analytics.savings', () => {
  it('sums llm.call_completed rows from SQL and matches the hand computation to the last digit', () => {
    const a = createAnalytics(handFixture().db, table);
    const r = a.savings({}, SONNET);
    // Same tokens as savings.test.ts's hand case: actual 4900 + 2775, baseline 39000 (per million).
    expect(r.actual_repriced_usd.toString()).toBe('0.007675');
    expect(r.baseline_repriced_usd.toString()).toBe('0.039');
    expect(r.savings_usd.toString()).toBe('0.031325');
    expect(r.rows_total).toBe(4);
    expect(r.rows_missing_from_price_table).toBe(1);
    expect(r.pricing_version).toBe('test-1');
  });

  it('selects the same rows by session as by the sessions’ time window (inclusive bounds)', () => {
    const a = createAnalytics(handFixture().db, table);
    const bySession = a.savings({ sessions: ['s1'] }, SONNET);
    expect(bySession.actual_repriced_usd.toString()).toBe('0.0049');
    expect(plain(a.savings({ window: { startUs: 100, endUs: 101 } }, SONNET))).toEqual(plain(bySession));
    expect(plain(a.savings({ window: { startUs: 101, endUs: 101 } }, SONNET)).rows_total).toBe(1);
    expect(plain(a.savings({ sessions: ['s1', 's2'] }, SONNET))).toEqual(plain(a.savings({ window: { startUs: 0, endUs: 10_000 } }, SONNET)));
  });

  it('answers zeros and a null percentage for an empty selection', () => {
    const a = createAnalytics(handFixture().db, table);
    const r = a.savings({ sessions: [] }, SONNET);
    expect(r.rows_total).toBe(0);
    expect(r.savings_pct).toBeNull();
    expect(a.savings({ window: { startUs: 201, endUs: 201 } }, SONNET)).toMatchObject({ rows_total: 1, rows_missing_from_price_table: 1, savings_pct: null });
  });

  it('rejects an inverted window', () => {
    const a = createAnalytics(handFixture().db, table);
    expect(() => a.savings({ window: { startUs: 5, endUs: 4 } }, SONNET)).toThrow(/invalid window/);
  });

  it('per-session savings add up exactly to savings over the union of sessions and over the whole window', () => {
    const models = [HAIKU, SONNET, MINI, 'local:unpriced'];
    const rowArb = fc.record({
      s: fc.integer({ min: 0, max: 4 }),
      m: fc.constantFrom(...models),
      i: fc.nat({ max: 500_000 }),
      o: fc.nat({ max: 100_000 }),
      c: fc.nat({ max: 900_000 }),
      w: fc.nat({ max: 100_000 }),
    });
    fc.assert(
      fc.property(fc.array(rowArb, { maxLength: 40 }), fc.constantFrom(SONNET, HAIKU, MINI), (rows, baseline) => {
        const f = createEventsFixture();
        for (const r of rows)
          f.llmCall({ session_id: `s${r.s}`, model: r.m, input_tokens: r.i, output_tokens: r.o, cached_input_tokens: r.c, cache_creation_input_tokens: r.w });
        const a = createAnalytics(f.db, table);
        const sessions = [0, 1, 2, 3, 4].map((s) => `s${s}`);
        const perSession = sumSavings(sessions.map((s) => a.savings({ sessions: [s] }, baseline)), baseline, 'test-1');
        const union = a.savings({ sessions }, baseline);
        expect(plain(perSession)).toEqual(plain(union));
        expect(plain(a.savings({}, baseline))).toEqual(plain(union));
        f.db.close();
      }),
      { numRuns: 40 },
    );
  });

  it('gives the same answer through the usage index on a large selection as the pure computation', () => {
    const f = createEventsFixture();
    const models = [HAIKU, SONNET, MINI, 'local:unpriced'];
    const sums = new Map<string, { rows: number; i: number; o: number; c: number; w: number }>();
    f.db.transaction(() => {
      for (let n = 0; n < 25_000; n++) {
        const m = models[n % 4]!;
        const row = { i: (n * 7919) % 4000, o: (n * 104729) % 900, c: (n * 31) % 10_000, w: (n * 17) % 700 };
        f.llmCall({ session_id: `s${n % 50}`, model: m, input_tokens: row.i, output_tokens: row.o, cached_input_tokens: row.c, cache_creation_input_tokens: row.w });
        const s = sums.get(m) ?? { rows: 0, i: 0, o: 0, c: 0, w: 0 };
        sums.set(m, { rows: s.rows + 1, i: s.i + row.i, o: s.o + row.o, c: s.c + row.c, w: s.w + row.w });
      }
    })();
    const a = createAnalytics(f.db, table);
    const expected = computeSavings(
      [...sums].map(([model, s]) => ({ model, rows: s.rows, input_tokens: s.i, output_tokens: s.o, cached_input_tokens: s.c, cache_creation_input_tokens: s.w })),
      SONNET,
      table,
    );
    expect(plain(a.savings({ window: { startUs: 0, endUs: Number.MAX_SAFE_INTEGER } }, SONNET))).toEqual(plain(expected));
  });

  it('a row a cache tier served keeps its recorded cost (a paid embedder\'s lookup) on both sides; re-pricing its zero tokens would say $0', () => {
    const f = createEventsFixture();
    f.llmCall({ session_id: 's1', model: HAIKU, input_tokens: 1_000_000 });
    const served = (cost: string) => f.add({ type: 'llm.call_completed', session_id: 's1', payload: { ...llmCallCompletedPayload({ model: HAIKU, cost_usd: cost }), cache_tier: 'semantic' } });
    served('0.000004');
    served('0.00000123');
    served('0');
    const r = createAnalytics(f.db, table).savings({ sessions: ['s1'] }, SONNET);
    // $1 of haiku input vs $3 of sonnet, each plus the $0.00000523 the served rows recorded.
    expect([r.actual_repriced_usd.toFixed(), r.baseline_repriced_usd.toFixed(), r.savings_usd.toFixed(), r.rows_total]).toEqual(['1.00000523', '3.00000523', '2', 4]);
  });

  it('works on a read-only trace DB that lacks the analytics index', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'analytics-')), 'trace.db');
    const f = createEventsFixture(new Database(file));
    f.llmCall({ session_id: 's1', model: HAIKU, input_tokens: 1_000_000 });
    f.db.close();
    const ro = new Database(file, { readonly: true });
    expect(createAnalytics(ro, table).savings({}, SONNET).savings_usd.toString()).toBe('2');
    expect(ro.prepare("SELECT COUNT(*) AS n FROM sqlite_master WHERE name = 'idx_events_llm_usage'").get()).toEqual({ n: 0 });
    ro.close();
  });

  it('on a connection that only reads (query_only, as analyze opens a DB it may write) adds no index and keeps what it read per session', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'analytics-')), 'trace.db');
    const f = createEventsFixture(new Database(file));
    f.llmCall({ session_id: 's1', model: HAIKU, input_tokens: 1_000_000 });
    f.db.close();
    const reader = openSqliteForReading(file);
    const a = createAnalytics(reader, table);
    expect(a.savings({ sessions: ['s1'] }, SONNET).savings_usd.toString()).toBe('2');
    expect(reader.prepare("SELECT COUNT(*) AS n FROM sqlite_master WHERE name = 'idx_events_llm_usage'").get()).toEqual({ n: 0 });
    // The session's rows were kept: asked again, it answers with the DB closed (a writer's analytics would query).
    reader.close();
    expect(a.savings({ sessions: ['s1'] }, SONNET).savings_usd.toString()).toBe('2');
  });
});

function chain(winner: PolicyName, model: string): ChainEntry[] {
  return POLICY_NAMES.map((policy) => ({
    policy,
    verdict: policy === winner ? 'chose' : 'not_applicable',
    candidate_model: policy === winner ? model : null,
    reason: 'fixture',
    rule_name: null,
    confidence: null,
    pattern_alternatives: null,
    validation_failure: null,
  }));
}

describe('analytics.routing / cacheEffectiveness / usageCounts', () => {
  it('counts decisions by the winning slot and by model, and hard failures', () => {
    const f = createEventsFixture();
    const decided = (session: string, winner: PolicyName, model: string) =>
      f.add({
        type: 'route.decided',
        session_id: session,
        actor: 'system',
        payload: { chosen_model: model, winner_index: POLICY_NAMES.indexOf(winner), elapsed_ms: 0.01, chain: chain(winner, model) },
      });
    decided('s1', 'rule', HAIKU);
    decided('s1', 'rule', HAIKU);
    decided('s1', 'pattern', SONNET);
    decided('s2', 'global_default', HAIKU);
    f.add({ type: 'llm.call_failed', session_id: 's1', payload: { model: HAIKU, error_class: 'rate_limit' } });
    const a = createAnalytics(f.db, table);
    const all = a.routing({});
    expect(all.decisions_total).toBe(4);
    expect(all.by_policy).toEqual({ ...Object.fromEntries(POLICY_NAMES.map((p) => [p, 0])), rule: 2, pattern: 1, global_default: 1 });
    expect(all.by_model).toEqual({ [HAIKU]: 3, [SONNET]: 1 });
    expect(all.hard_failures).toBe(1);
    expect(a.routing({ sessions: ['s2'] })).toMatchObject({ decisions_total: 1, hard_failures: 0, by_model: { [HAIKU]: 1 } });
  });

  it('computes cache hit rate and write share over all input tokens', () => {
    const a = createAnalytics(handFixture().db, table);
    // input 1000+200+3000+999 = 5199, cached 3000, creation 400 → denominator 8599
    const c = a.cacheEffectiveness({});
    expect(c).toMatchObject({ input_tokens: 5199, cached_input_tokens: 3000, cache_creation_input_tokens: 400 });
    expect(c.hit_rate).toBeCloseTo(3000 / 8599, 12);
    expect(c.cache_write_share).toBeCloseTo(400 / 8599, 12);
    expect(a.cacheEffectiveness({ sessions: ['nobody'] })).toMatchObject({ hit_rate: null, cache_write_share: null });
  });

  it('counts turns, llm calls, tool calls and failed tools (a non-zero shell exit is not a failed tool)', () => {
    const f = handFixture();
    f.add({ type: 'turn.started', session_id: 's1', actor: 'user', payload: {} });
    f.add({ type: 'turn.started', session_id: 's2', actor: 'user', payload: {} });
    for (let i = 0; i < 3; i++) f.add({ type: 'tool.called', session_id: 's1', payload: { tool_name: 'read_file' } });
    f.add({ type: 'tool.completed', session_id: 's1', actor: 'tool', payload: { success: true } });
    f.add({ type: 'tool.completed', session_id: 's1', actor: 'tool', payload: { success: false } });
    f.add({ type: 'tool.failed', session_id: 's1', actor: 'tool', payload: { error_class: 'timeout' } });
    f.add({ type: 'tool.input_invalid', session_id: 's1', actor: 'system', payload: { tool_name: 'x', validation_errors: [] } });
    f.add({ type: 'llm.call_failed', session_id: 's2', payload: {} });
    const a = createAnalytics(f.db, table);
    expect(a.usageCounts({})).toEqual({ turns: 2, llm_calls: 4, llm_calls_failed: 1, tool_calls: 3, tool_calls_failed: 1, tool_inputs_invalid: 1 });
    expect(a.usageCounts({ sessions: ['s2'] })).toEqual({ turns: 1, llm_calls: 2, llm_calls_failed: 1, tool_calls: 0, tool_calls_failed: 0, tool_inputs_invalid: 0 });
  });
});
