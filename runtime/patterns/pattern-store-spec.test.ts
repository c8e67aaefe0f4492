// pattern-store.md §12.1: the 26 required tests, one `it` each, numbered as in the spec.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Decimal } from 'decimal.js';
import { afterEach, describe, expect, it } from 'vitest';
import { createVirtualClock } from '../core/clock.ts';
import { createMemoryLogger } from '../core/logger.ts';
import { createEventBus, eventCatalog, EventValidationError, type BusEvent } from '../events/index.ts';
import {
  computeStructuralFeatures,
  openPatternStore,
  patternMatchedPayload,
  SIMILARITY_WEIGHTS,
  similarity,
  type PatternStore,
  type RecommendOptions,
} from './index.ts';
import { features, HAIKU, OPUS, SONNET } from './test-support/feature-fixtures.ts';
import { CTX, DAY_US, makeStore, payloadsOf, recordTurn, tempDir, type StoreFixture } from './test-support/store-fixtures.ts';

const fixtures: StoreFixture[] = [];
function fixture(opts: Parameters<typeof makeStore>[0] = {}): StoreFixture {
  const f = makeStore(opts);
  fixtures.push(f);
  return f;
}
afterEach(() => {
  for (const f of fixtures.splice(0)) f.cleanup();
});

const NO_GATES: RecommendOptions = { cost_weight: 0, min_confidence: 0, min_sample_size: 0 };
const PY = features({ file_extensions: ['.py'], intent_tags: ['debug'], tool_names: ['read_file'], side_effect_classes: ['read'] });

/** Two models on one fingerprint: `a` good and dear, `b` mediocre and cheap, `n` scored turns each. */
function twoModelCluster(store: PatternStore, opts: { aScore: number; bScore: number; aCost: string; bCost: string; n?: number }): void {
  for (let i = 0; i < (opts.n ?? 3); i++) {
    recordTurn(store, PY, { model: SONNET, score: opts.aScore, cost: opts.aCost });
    recordTurn(store, PY, { model: HAIKU, score: opts.bScore, cost: opts.bCost });
  }
}

const isValid = (type: string, payload: unknown) => eventCatalog().validator(type)!(payload);

describe('pattern-store.md §12.1 required tests', () => {
  it('1: an empty store recommends nothing', () => {
    const { store } = fixture();
    expect(store.recommend(PY, { cost_weight: 0.05, min_confidence: 0.05, min_sample_size: 5 })).toMatchObject({
      chosen_model: null,
      confidence: 0,
      alternatives: [],
      sample_size: 0,
      k_cluster_size: 0,
      fingerprint_id: null,
    });
  });

  it('2: a missing .metis/patterns.db reads as an empty store without creating it', () => {
    const { store, path, logs } = fixture();
    expect(existsSync(path)).toBe(false);
    expect(store.recommend(PY, NO_GATES).chosen_model).toBeNull();
    expect(store.findKNearest(PY, 10)).toEqual([]);
    expect(store.size()).toEqual({ fingerprints: 0, outcomes: 0, oldest_updated_at_us: null });
    expect(store.updateScore({ turn_id: 'nope', score: 1, confidence: 1, eval_id: 'e1', pricing_version: null, min_eval_confidence: 0.5 }, CTX).sample_size_after).toBe(0);
    expect(existsSync(path)).toBe(false);
    expect(logs.filter((l) => l.level === 'warn').map((l) => l.msg)).toEqual(['pattern store: verdict for an unknown turn ignored']);
  });

  it('3: the first record creates the file, one fingerprint and one outcome row', () => {
    const { store, path } = fixture();
    const r = recordTurn(store, PY, { model: SONNET, score: 0.7, cost: '0.0123' });
    expect(existsSync(path)).toBe(true);
    expect(r).toMatchObject({ primary_model: SONNET, sample_size_before: 0, sample_size_after: 1, was_new_fingerprint: true, rows_auto_evicted: 0 });
    expect(store.fingerprints().map((f) => f.id)).toEqual([r.fingerprint_id]);
    const [o] = store.outcomes();
    expect(store.outcomes()).toHaveLength(1);
    expect(o).toMatchObject({ fingerprint_id: r.fingerprint_id, primary_model: SONNET, sample_size: 1, success_score_mean: 0.7, success_score_count: 1 });
    expect(o!.avg_cost_usd.toString()).toBe('0.0123');
  });

  it('4: a second record of the same fingerprint and model increments sample_size and updates the mean (Welford)', () => {
    const { store } = fixture();
    const a = recordTurn(store, PY, { score: 0.4 });
    const b = recordTurn(store, PY, { score: 0.9 });
    expect(b).toMatchObject({ fingerprint_id: a.fingerprint_id, sample_size_before: 1, sample_size_after: 2, was_new_fingerprint: false });
    const [o] = store.outcomes();
    expect(o!.sample_size).toBe(2);
    expect(o!.success_score_count).toBe(2);
    expect(o!.success_score_mean).toBeCloseTo(0.65, 12);
  });

  it('5: the same fingerprint with another model adds an outcome row, not a fingerprint', () => {
    const { store } = fixture();
    const a = recordTurn(store, PY, { model: HAIKU });
    const b = recordTurn(store, PY, { model: SONNET });
    expect(b).toMatchObject({ fingerprint_id: a.fingerprint_id, was_new_fingerprint: false, sample_size_after: 1 });
    expect(store.size()).toMatchObject({ fingerprints: 1, outcomes: 2 });
  });

  it('6: K-NN ranks the closest fingerprint first', () => {
    const { store } = fixture();
    const query = features({ intent_tags: ['test'], file_extensions: ['.ts'], tool_names: ['read_file', 'run_shell'] });
    const near = recordTurn(store, features({ intent_tags: ['test'], file_extensions: ['.ts'], tool_names: ['read_file'] }), { model: SONNET });
    const far = recordTurn(store, features({ intent_tags: ['doc'], file_extensions: ['.md'], estimated_input_tokens_bucket: 2 }), { model: OPUS });
    const mid = recordTurn(store, features({ intent_tags: ['test'], file_extensions: ['.py'] }), { model: HAIKU });
    const got = store.findKNearest(query, 10);
    expect(got.map((n) => n.fingerprint_id)).toEqual([near.fingerprint_id, mid.fingerprint_id, far.fingerprint_id]);
    expect(got[0]!.similarity).toBeGreaterThan(got[1]!.similarity);
    expect(got[1]!.similarity).toBeGreaterThan(got[2]!.similarity);
    expect(store.findKNearest(query, 1).map((n) => n.fingerprint_id)).toEqual([near.fingerprint_id]);
  });

  it('7: the similarity weights sum to 1', () => {
    const sum = Object.values(SIMILARITY_WEIGHTS).reduce((a, b) => a + b, 0);
    expect(sum).toBeCloseTo(1, 12);
    expect(Object.keys(SIMILARITY_WEIGHTS).sort()).toEqual(
      ['estimated_input_tokens_bucket', 'file_extensions', 'file_path_buckets', 'has_images', 'intent_tags', 'side_effect_classes', 'tool_names'].sort(),
    );
    expect(similarity(PY, PY)).toBe(1);
  });

  it('8: cost_weight = 0 picks the best success regardless of cost', () => {
    const { store } = fixture();
    twoModelCluster(store, { aScore: 0.9, bScore: 0.5, aCost: '0.09', bCost: '0.001' });
    const rec = store.recommend(PY, { ...NO_GATES, cost_weight: 0 });
    expect(rec.chosen_model).toBe(SONNET);
    expect(rec.alternatives.map((a) => [a.model, a.score])).toEqual([
      [SONNET, 0.9],
      [HAIKU, 0.5],
    ]);
  });

  it('9: cost_weight = 1 picks the cheapest regardless of success', () => {
    const { store } = fixture();
    twoModelCluster(store, { aScore: 0.9, bScore: 0.5, aCost: '0.09', bCost: '0.001' });
    const rec = store.recommend(PY, { ...NO_GATES, cost_weight: 1 });
    expect(rec.chosen_model).toBe(HAIKU);
    expect(rec.alternatives.map((a) => [a.model, a.score])).toEqual([
      [HAIKU, 1],
      [SONNET, 0],
    ]);
    expect(rec.confidence).toBe(1);
  });

  it('10: cost_weight = 0.5 blends success and cost efficiency per routing §5.5', () => {
    const { store } = fixture();
    twoModelCluster(store, { aScore: 0.9, bScore: 0.5, aCost: '0.09', bCost: '0.001' });
    const rec = store.recommend(PY, { ...NO_GATES, cost_weight: 0.5 });
    // sonnet: 0.5·0.9 + 0.5·0 = 0.45; haiku: 0.5·0.5 + 0.5·1 = 0.75.
    expect(rec.chosen_model).toBe(HAIKU);
    expect(rec.alternatives[0]!.score).toBeCloseTo(0.75, 12);
    expect(rec.alternatives[1]!.score).toBeCloseTo(0.45, 12);
    expect(rec.confidence).toBeCloseTo(0.4, 12);
    expect(rec.alternatives.map((a) => a.avg_cost_usd)).toEqual(['0.001', '0.09']);
  });

  it('11: identical costs zero the cost term, so the choice falls to pure quality', () => {
    const { store } = fixture();
    twoModelCluster(store, { aScore: 0.5, bScore: 0.9, aCost: '0.01', bCost: '0.01' });
    const rec = store.recommend(PY, { ...NO_GATES, cost_weight: 0.5 });
    expect(rec.chosen_model).toBe(HAIKU);
    expect(rec.alternatives.map((a) => a.score)).toEqual([0.45, 0.25]);
  });

  it('12: a confidence below min_confidence gives no recommendation, but keeps the ranked list', () => {
    const { store } = fixture();
    twoModelCluster(store, { aScore: 0.8, bScore: 0.78, aCost: '0.01', bCost: '0.01' });
    const open = store.recommend(PY, { ...NO_GATES, min_confidence: 0.01 });
    expect(open.chosen_model).toBe(SONNET);
    const gated = store.recommend(PY, { ...NO_GATES, min_confidence: 0.05 });
    expect(gated.chosen_model).toBeNull();
    expect(gated.confidence).toBeCloseTo(0.025, 12);
    expect(gated.alternatives.map((a) => a.model)).toEqual([SONNET, HAIKU]);
  });

  it('13: a sample size below min_sample_size gives no recommendation', () => {
    const { store } = fixture();
    twoModelCluster(store, { aScore: 0.9, bScore: 0.2, aCost: '0.01', bCost: '0.01', n: 4 });
    expect(store.recommend(PY, { ...NO_GATES, min_sample_size: 4 }).chosen_model).toBe(SONNET);
    const gated = store.recommend(PY, { ...NO_GATES, min_sample_size: 5 });
    expect(gated.chosen_model).toBeNull();
    expect(gated.sample_size).toBe(4);
  });

  it('14: a write reaching the soft cap reports over_soft_cap and emits pattern.evicted soft_cap_signal', async () => {
    const { store, bus, events } = fixture({ caps: { soft_cap_rows: 3, hard_cap_rows: 10 } });
    expect(recordTurn(store, features({ intent_tags: ['a'] })).over_soft_cap).toBe(false);
    expect(recordTurn(store, features({ intent_tags: ['b'] })).over_soft_cap).toBe(false);
    const third = recordTurn(store, features({ intent_tags: ['c'] }));
    expect(third).toMatchObject({ over_soft_cap: true, rows_auto_evicted: 0 });
    await bus.drain();
    const evicted = events.filter((e) => e.type === 'pattern.evicted');
    expect(evicted.map((e) => e.payload)).toEqual([
      { trigger: 'soft_cap_signal', fingerprints_before: 3, fingerprints_after: 3, outcomes_before: 3, outcomes_after: 3, entries_evicted: 0, oldest_evicted_age_days: null },
    ]);
    const recorded = events.filter((e) => e.type === 'pattern.recorded').at(-1)!;
    expect(evicted[0]!.parent_event_id).toBe(recorded.id);
    expect(store.size().outcomes).toBe(3);
  });

  it('15: going over the hard cap evicts the least recently updated rows and emits hard_cap_evict', async () => {
    const { store, clock, bus, events } = fixture({ caps: { soft_cap_rows: 2, hard_cap_rows: 3 } });
    const rows = ['a', 'b', 'c', 'd'].map((tag) => {
      clock.advanceUs(1_000_000);
      return recordTurn(store, features({ intent_tags: [tag] }));
    });
    expect(rows[3]!.rows_auto_evicted).toBe(1);
    expect(store.fingerprints().map((f) => f.id)).toEqual(rows.slice(1).map((r) => r.fingerprint_id));
    await bus.drain();
    expect(payloadsOf(events, 'pattern.evicted').at(-1)).toMatchObject({
      trigger: 'hard_cap_evict',
      outcomes_before: 4,
      outcomes_after: 3,
      fingerprints_before: 4,
      fingerprints_after: 3,
      entries_evicted: 1,
    });
    expect(store.findKNearest(features({ intent_tags: ['a'] }), 10).map((n) => n.fingerprint_id)).not.toContain(rows[0]!.fingerprint_id);
  });

  it('16: age-stale rows go first under combined pressure, even beyond what the cap needs', async () => {
    const { store, clock, bus, events } = fixture({ caps: { soft_cap_rows: 4, hard_cap_rows: 4, max_age_days: 30 } });
    // Two well-evidenced rows, then (20 days later) two single-shot rows: four rows, none stale yet.
    for (const tag of ['s1', 's2']) for (let i = 0; i < 5; i++) recordTurn(store, features({ intent_tags: [tag] }));
    clock.advanceUs(20 * DAY_US);
    const fresh = ['f1', 'f2'].map((tag) => recordTurn(store, features({ intent_tags: [tag] })).fingerprint_id);
    expect(store.size().outcomes).toBe(4);
    // 15 days on, the first two are past 30 days; a fifth row needs one eviction, and both stale rows go.
    clock.advanceUs(15 * DAY_US);
    const last = recordTurn(store, features({ intent_tags: ['f3'] }));
    expect(last.rows_auto_evicted).toBe(2);
    expect(store.outcomes().map((o) => o.fingerprint_id).sort()).toEqual([...fresh, last.fingerprint_id].sort());
    await bus.drain();
    expect(payloadsOf(events, 'pattern.evicted').at(-1)).toMatchObject({ trigger: 'hard_cap_evict', entries_evicted: 2, oldest_evicted_age_days: 35 });
  });

  it('17: eviction is atomic: a failure part-way leaves every row in place', () => {
    const { store, clock, path, logs } = fixture();
    const ids = ['a', 'b', 'c'].map((tag) => {
      clock.advanceUs(1_000_000);
      return recordTurn(store, features({ intent_tags: [tag] }), { model: tag === 'c' ? 'poison:model' : HAIKU }).fingerprint_id;
    });
    // The third condemned row cannot be deleted: the first two deletions must roll back with it.
    const raw = new Database(path);
    raw.exec("CREATE TRIGGER refuse BEFORE DELETE ON outcomes WHEN OLD.primary_model = 'poison:model' BEGIN SELECT RAISE(ABORT, 'refused'); END");
    raw.close();
    expect(store.evict({ max_rows: 0 })).toBe(0);
    expect(logs.some((l) => l.level === 'warn' && String(l.fields?.reason).includes('refused'))).toBe(true);
    expect(store.size()).toMatchObject({ fingerprints: 3, outcomes: 3 });
    expect(store.findKNearest(features(), 10).map((n) => n.fingerprint_id).sort()).toEqual(ids.sort());
  });

  it('18: clear empties the store and emits pattern.evicted manual_clear', async () => {
    const { store, bus, events } = fixture();
    recordTurn(store, PY, { model: HAIKU });
    recordTurn(store, PY, { model: SONNET });
    recordTurn(store, features(), { model: HAIKU });
    expect(store.clear(CTX)).toBe(3);
    expect(store.size()).toEqual({ fingerprints: 0, outcomes: 0, oldest_updated_at_us: null });
    expect(store.recommend(PY, NO_GATES).k_cluster_size).toBe(0);
    await bus.drain();
    expect(payloadsOf(events, 'pattern.evicted')).toEqual([
      { trigger: 'manual_clear', fingerprints_before: 2, fingerprints_after: 0, outcomes_before: 3, outcomes_after: 0, entries_evicted: 3, oldest_evicted_age_days: null },
    ]);
  });

  it('19: recording success_score = null updates sample_size and avg_cost_usd but not success_score_mean', () => {
    const { store } = fixture();
    recordTurn(store, PY, { score: 0.8, cost: '0.010' });
    recordTurn(store, PY, { score: null, cost: '0.030' });
    const [o] = store.outcomes();
    expect(o).toMatchObject({ sample_size: 2, success_score_mean: 0.8, success_score_count: 1 });
    expect(o!.avg_cost_usd.toString()).toBe('0.02');
  });

  it('20: the cluster mean weights each neighbour by its samples (50 vs 1)', () => {
    const { store } = fixture();
    const heavy = features({ intent_tags: ['test'], file_extensions: ['.py'] });
    const light = features({ intent_tags: ['test'], file_extensions: ['.ts'] });
    for (let i = 0; i < 50; i++) recordTurn(store, heavy, { model: SONNET, score: 1 });
    recordTurn(store, light, { model: SONNET, score: 0 });
    const rec = store.recommend(heavy, NO_GATES);
    expect(rec.k_cluster_size).toBe(2);
    expect(rec.alternatives).toHaveLength(1);
    expect(rec.alternatives[0]!.success_score_mean).toBeCloseTo(50 / 51, 12);
    expect(rec.alternatives[0]!.sample_size).toBe(51);
  });

  it('21: pricing_version_last is the most recent contributing version', () => {
    const { store } = fixture();
    const r = recordTurn(store, PY, { pricing: '2026-01-01', turn: 't1' });
    recordTurn(store, PY, { pricing: '2026-05-01' });
    expect(store.outcomes()[0]!.pricing_version_last).toBe('2026-05-01');
    // A late verdict priced under an older table does not move it back.
    store.updateScore({ turn_id: 't1', score: 1, confidence: 1, eval_id: 'e1', pricing_version: '2025-12-01', min_eval_confidence: 0.5 }, CTX);
    expect(store.outcomes()[0]).toMatchObject({ fingerprint_id: r.fingerprint_id, pricing_version_last: '2026-05-01' });
  });

  it('22: stores of two workspaces do not see each other', () => {
    const a = fixture();
    const b = fixture();
    recordTurn(a.store, PY, { model: SONNET, score: 1 });
    expect(b.store.size().outcomes).toBe(0);
    expect(b.store.findKNearest(PY, 10)).toEqual([]);
    recordTurn(b.store, PY, { model: HAIKU, score: 1 });
    expect(a.store.outcomes().map((o) => o.primary_model)).toEqual([SONNET]);
    expect(b.store.outcomes().map((o) => o.primary_model)).toEqual([HAIKU]);
  });

  it('23: concurrent readers are safe while another connection holds a write transaction', () => {
    const { store, path, reopen } = fixture();
    twoModelCluster(store, { aScore: 0.9, bScore: 0.5, aCost: '0.01', bCost: '0.01' });
    const readers = [reopen(), reopen()];
    const writer = new Database(path);
    writer.pragma('busy_timeout = 0');
    writer.exec('BEGIN IMMEDIATE');
    writer.exec("UPDATE outcomes SET success_score_mean = 0 WHERE primary_model = 'anthropic:claude-sonnet-4-6'");
    // WAL: readers see the last committed state, not the open transaction, and are not blocked.
    for (const r of [store, ...readers]) {
      expect(r.recommend(PY, NO_GATES).chosen_model).toBe(SONNET);
      expect(r.size().outcomes).toBe(2);
    }
    writer.exec('COMMIT');
    writer.close();
    for (const r of readers) expect(r.recommend(PY, NO_GATES).chosen_model).toBe(HAIKU);
  });

  it('24: pattern.recorded payloads validate against the catalog schema (strict bus)', async () => {
    const { store, bus, events, logs } = fixture();
    recordTurn(store, PY, { model: SONNET, cost: '0.00000042', turn: 't1' });
    store.updateScore({ turn_id: 't1', score: 0.75, confidence: 0.9, eval_id: 'e1', pricing_version: null, min_eval_confidence: 0.5 }, CTX);
    await bus.drain();
    const recorded = payloadsOf(events, 'pattern.recorded');
    expect(recorded).toHaveLength(2);
    for (const p of recorded) expect(isValid('pattern.recorded', p)).toBe(true);
    expect(recorded[0]).toMatchObject({ success_score: null, cost_usd_at_record: '0.00000042', sample_size_before: 0, sample_size_after: 1 });
    expect(recorded[1]).toMatchObject({ success_score: 0.75, cost_usd_at_record: '0', sample_size_before: 1, sample_size_after: 1 });
    expect(events.filter((e: BusEvent) => e.type === 'pattern.recorded').every((e) => e.sensitivity === 'pseudonymous' && e.actor === 'system')).toBe(true);
    expect(logs.filter((l) => l.level === 'warn')).toEqual([]);
    expect(isValid('pattern.recorded', { ...recorded[0], cost_usd_at_record: 4.2e-7 })).toBe(false);
  });

  it('25: pattern.matched payloads validate against the catalog schema (strict bus)', async () => {
    const { store } = fixture();
    twoModelCluster(store, { aScore: 0.9, bScore: 0.5, aCost: '0.01', bCost: '0.01', n: 5 });
    const payload = patternMatchedPayload(store.recommend(PY, { cost_weight: 0.05, min_confidence: 0.05, min_sample_size: 5 }))!;
    expect(payload).toMatchObject({ fingerprint_kind: 'structural', chosen_model: SONNET, sample_size: 5, k_cluster_size: 2, alternatives_count: 2 });
    expect(payload.fingerprint_id).toBe(store.fingerprints()[0]!.id);
    const logger = createMemoryLogger();
    const bus = createEventBus({ mode: 'strict', logger, clock: createVirtualClock(0) });
    const seen: BusEvent[] = [];
    bus.subscribe({ name: 'r', filter: {}, fast_path: true, handler: (e) => void seen.push(e) });
    bus.emit({ session_id: 's', turn_id: 't', parent_event_id: null, type: 'pattern.matched', actor: 'system', payload });
    await bus.drain();
    expect(seen.map((e) => [e.type, e.sensitivity])).toEqual([['pattern.matched', 'pseudonymous']]);
    expect(() => bus.emit({ session_id: 's', type: 'pattern.matched', actor: 'system', payload: { ...payload, confidence: 1.5 } })).toThrow(EventValidationError);
  });

  it('26: a first turn with empty feature sets fingerprints and recommends gracefully', () => {
    const { store } = fixture();
    const first = computeStructuralFeatures({
      userMessage: 'hello there',
      history: [],
      toolSideEffects: {},
      estimatedInputTokens: 40,
      hasImages: false,
      workspaceHash: 'ws',
      workloadId: null,
    });
    expect(first).toMatchObject({ file_extensions: [], file_path_buckets: [], tool_names: [], side_effect_classes: [], intent_tags: [], has_tool_calls_in_history: false });
    expect(store.recommend(first, { cost_weight: 0.05, min_confidence: 0.05, min_sample_size: 5 }).chosen_model).toBeNull();
    recordTurn(store, first, { model: HAIKU, score: 1 });
    const rec = store.recommend(first, NO_GATES);
    expect(rec).toMatchObject({ chosen_model: HAIKU, confidence: 1, k_cluster_size: 1 });
    expect(store.findKNearest(first, 5)[0]!.similarity).toBe(1);
  });
});

describe('storage paths', () => {
  it('creates missing parent directories on the first write', () => {
    const dir = tempDir();
    const path = join(dir, 'a', 'b', '.metis', 'patterns.db');
    const f = fixture({ dir, path });
    recordTurn(f.store, PY);
    expect(existsSync(path)).toBe(true);
    const again = openPatternStore(path, { logger: createMemoryLogger(), clock: createVirtualClock(0) });
    expect(again.size().outcomes).toBe(1);
    again.close();
  });

  it('keeps money exact: micro-dollar sums in, Decimal averages out', () => {
    const { store } = fixture();
    for (const c of ['0.1', '0.2', '0.000001']) recordTurn(store, PY, { cost: c });
    expect(store.outcomes()[0]!.avg_cost_usd.equals(new Decimal('0.300001').div(3))).toBe(true);
  });
});
