import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { createVirtualClock } from '../core/clock.ts';
import { createMemoryLogger } from '../core/logger.ts';
import { normalizeFeatures, openPatternStore, PATTERN_SCHEMA_VERSION, structuralSignature, type PatternStore, type UpdateScoreInput } from './index.ts';
import { openPatternDb, type PatternDb } from './pattern-db.ts';
import { openStructuralStore } from './sqlite-pattern-store.ts';
import { features, HAIKU, SONNET } from './test-support/feature-fixtures.ts';
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

const PY = features({ file_extensions: ['.py'], intent_tags: ['debug'] });
const NO_GATES = { cost_weight: 0, min_confidence: 0, min_sample_size: 0 };

function verdict(store: PatternStore, turn_id: string, eval_id: string, score: number, confidence = 0.9): ReturnType<PatternStore['updateScore']> {
  const input: UpdateScoreInput = { turn_id, eval_id, score, confidence, pricing_version: null, min_eval_confidence: 0.5 };
  return store.updateScore(input, CTX);
}

const outcome = (store: PatternStore) => store.outcomes()[0]!;
const warnings = (fx: StoreFixture) => fx.logs.filter((l) => l.level === 'warn');

describe('the file (pattern-store.md §7.1)', () => {
  it('is WAL with user_version 1, stores the canonical features, their SHA-256 and costs as integer micro-dollars', () => {
    const fx = fixture();
    const messy = { ...PY, file_extensions: ['.PY', '.py'], intent_tags: ['debug', 'debug'] };
    const r = recordTurn(fx.store, messy, { cost: '0.0012345' });
    expect(recordTurn(fx.store, PY).fingerprint_id).toBe(r.fingerprint_id);
    fx.store.close();
    const db = new Database(fx.path, { readonly: true });
    expect(db.pragma('user_version', { simple: true })).toBe(PATTERN_SCHEMA_VERSION);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    const fp = db.prepare('SELECT kind, structural_json, structural_sig FROM fingerprints').get() as { kind: string; structural_json: string; structural_sig: string };
    expect(fp.kind).toBe('structural');
    expect(JSON.parse(fp.structural_json)).toEqual(normalizeFeatures(PY));
    expect(fp.structural_sig).toBe(structuralSignature(PY));
    expect(db.prepare('SELECT typeof(sum_cost_usd_micros) AS t, sum_cost_usd_micros AS v FROM outcomes').get()).toEqual({ t: 'integer', v: 1234 + 1000 }); // 1234.5 µ$ rounds half-even
    expect(db.prepare("SELECT value FROM store_meta WHERE key = 'schema_version'").pluck().get()).toBe('1');
    db.close();
  });
});

describe('record', () => {
  it('records a turn at most once: a repeated turn_id changes nothing and emits nothing', async () => {
    const fx = fixture();
    const first = recordTurn(fx.store, PY, { turn: 't1', score: 0.5 });
    const again = recordTurn(fx.store, PY, { turn: 't1', score: 1, model: SONNET });
    expect(again).toEqual({ ...first, sample_size_before: 1, sample_size_after: 1, was_new_fingerprint: false });
    expect(fx.store.outcomes()).toHaveLength(1);
    expect(outcome(fx.store)).toMatchObject({ sample_size: 1, success_score_mean: 0.5 });
    await fx.bus.drain();
    expect(payloadsOf(fx.events, 'pattern.recorded')).toHaveLength(1);
  });

  it('rejects invalid arguments before touching the file', () => {
    const fx = fixture();
    expect(() => recordTurn(fx.store, PY, { score: 1.5 })).toThrow(RangeError);
    expect(() => recordTurn(fx.store, PY, { cost: '-0.01' })).toThrow(RangeError);
    expect(() => recordTurn(fx.store, PY, { latency: Number.NaN })).toThrow(RangeError);
    expect(fx.store.size().outcomes).toBe(0);
  });
});

describe('updateScore (pattern-store.md §10.4)', () => {
  it('folds a late verdict into the mean and emits pattern.recorded with an unchanged sample size', async () => {
    const fx = fixture();
    recordTurn(fx.store, PY, { turn: 't1' });
    recordTurn(fx.store, PY, { turn: 't2' });
    const r = verdict(fx.store, 't1', 'e1', 0.6);
    expect(r).toMatchObject({ sample_size_before: 2, sample_size_after: 2, was_new_fingerprint: false });
    expect(outcome(fx.store)).toMatchObject({ sample_size: 2, success_score_count: 1, success_score_mean: 0.6 });
    await fx.bus.drain();
    expect(payloadsOf(fx.events, 'pattern.recorded').at(-1)).toMatchObject({ success_score: 0.6, sample_size_before: 2, sample_size_after: 2 });
  });

  it('is idempotent by eval_id', async () => {
    const fx = fixture();
    recordTurn(fx.store, PY, { turn: 't1' });
    verdict(fx.store, 't1', 'e1', 0.6);
    verdict(fx.store, 't1', 'e1', 0.6);
    expect(outcome(fx.store)).toMatchObject({ success_score_count: 1, success_score_mean: 0.6 });
    await fx.bus.drain();
    expect(payloadsOf(fx.events, 'pattern.recorded')).toHaveLength(2);
  });

  it('lets the latest (greatest) eval_id win: a newer verdict replaces exactly, an older one is ignored', () => {
    const fx = fixture();
    recordTurn(fx.store, PY, { turn: 't1' });
    recordTurn(fx.store, PY, { turn: 't2' });
    verdict(fx.store, 't2', 'e0', 0.2);
    verdict(fx.store, 't1', 'e1', 1);
    verdict(fx.store, 't1', 'e3', 0.4);
    expect(outcome(fx.store).success_score_mean).toBeCloseTo(0.3, 12);
    verdict(fx.store, 't1', 'e2', 0.9);
    expect(outcome(fx.store)).toMatchObject({ success_score_count: 2 });
    expect(outcome(fx.store).success_score_mean).toBeCloseTo(0.3, 12);
  });

  it('replaces a score given at record time', () => {
    const fx = fixture();
    recordTurn(fx.store, PY, { turn: 't1', score: 0.1 });
    verdict(fx.store, 't1', 'e1', 0.9);
    expect(outcome(fx.store)).toMatchObject({ success_score_count: 1, success_score_mean: 0.9 });
  });

  it('keeps a low-confidence verdict in history without folding it, and it still supersedes an older folded one', async () => {
    const fx = fixture();
    recordTurn(fx.store, PY, { turn: 't1' });
    expect(verdict(fx.store, 't1', 'e1', 0.8, 0.9).sample_size_after).toBe(1);
    expect(outcome(fx.store)).toMatchObject({ success_score_count: 1, success_score_mean: 0.8 });
    verdict(fx.store, 't1', 'e2', 0.1, 0.3);
    expect(outcome(fx.store)).toMatchObject({ success_score_count: 0, success_score_mean: 0 });
    const db = new Database(fx.path, { readonly: true });
    expect(db.prepare('SELECT eval_id_applied, score, confidence, folded FROM outcome_score_history WHERE turn_id = ?').get('t1')).toEqual({
      eval_id_applied: 'e2',
      score: 0.1,
      confidence: 0.3,
      folded: 0,
    });
    db.close();
    await fx.bus.drain();
    // Phase 1 and the folded verdict; the gated one emits nothing.
    expect(payloadsOf(fx.events, 'pattern.recorded').map((p) => p.success_score)).toEqual([null, 0.8]);
  });

  it('warns and reports sample_size_after 0 for a turn it never recorded', () => {
    const fx = fixture();
    recordTurn(fx.store, PY, { turn: 't1' });
    expect(verdict(fx.store, 'ghost', 'e1', 1)).toMatchObject({ sample_size_after: 0, was_new_fingerprint: false });
    expect(warnings(fx).map((w) => [w.msg, w.fields?.turn_id])).toEqual([['pattern store: verdict for an unknown turn ignored', 'ghost']]);
    expect(fx.store.size().outcomes).toBe(1);
  });

  it('after any order of verdicts, the mean equals the batch mean of each turn latest confident score (within 1e-9)', () => {
    const arbVerdicts = fc.array(
      fc.record({ turn: fc.nat(4), evalSeq: fc.nat(50), score: fc.double({ min: 0, max: 1, noNaN: true }), confidence: fc.double({ min: 0, max: 1, noNaN: true }) }),
      { maxLength: 40 },
    );
    const fx = fixture();
    let run = 0;
    fc.assert(
      fc.property(arbVerdicts, fc.array(fc.option(fc.double({ min: 0, max: 1, noNaN: true })), { minLength: 5, maxLength: 5 }), (list, initial) => {
        fx.store.clear();
        run++;
        initial.forEach((score, t) => recordTurn(fx.store, PY, { turn: `r${run}-t${t}`, score }));
        // One verdict per eval id (a re-evaluation gets a fresh id); re-delivery repeats the same verdict.
        const byEval = new Map(list.map((v) => [v.evalSeq, v]));
        const latest = new Map<number, { seq: number; score: number; confidence: number }>();
        for (const v of [...list, ...list.slice(0, 5)]) {
          const known = byEval.get(v.evalSeq)!;
          verdict(fx.store, `r${run}-t${known.turn}`, `e${String(known.evalSeq).padStart(3, '0')}`, known.score, known.confidence);
          const cur = latest.get(known.turn);
          if (!cur || known.evalSeq > cur.seq) latest.set(known.turn, { seq: known.evalSeq, ...known });
        }
        const held: number[] = [];
        initial.forEach((score, t) => {
          const v = latest.get(t);
          if (v) {
            if (v.confidence >= 0.5) held.push(v.score);
          } else if (score !== null) held.push(score);
        });
        const o = outcome(fx.store);
        expect(o.success_score_count).toBe(held.length);
        const batch = held.length ? held.reduce((a, b) => a + b, 0) / held.length : 0;
        expect(Math.abs(o.success_score_mean - batch)).toBeLessThanOrEqual(1e-9);
      }),
      { numRuns: 80 },
    );
  });
});

describe('recommend details', () => {
  it('names the stored fingerprint equal to the query, and only that one', () => {
    const fx = fixture();
    const r = recordTurn(fx.store, PY, { score: 1 });
    expect(fx.store.recommend(PY, NO_GATES).fingerprint_id).toBe(r.fingerprint_id);
    expect(fx.store.recommend({ ...PY, intent_tags: ['test'] }, NO_GATES).fingerprint_id).toBeNull();
  });

  it('partitions by workload unless asked not to', () => {
    const fx = fixture();
    const same = recordTurn(fx.store, features({ workload_id: 'w1' }), { model: HAIKU });
    const twin = recordTurn(fx.store, features({ workload_id: 'w2', intent_tags: ['debug'] }), { model: SONNET });
    const q = features({ workload_id: 'w2' });
    expect(fx.store.findKNearest(q, 1)[0]!.fingerprint_id).toBe(twin.fingerprint_id);
    expect(fx.store.findKNearest(q, 1, { useWorkloadId: false })[0]!.fingerprint_id).toBe(same.fingerprint_id);
  });

  it('reports elapsed_ms from the injected monotonic clock', () => {
    let t = 0;
    const dir = tempDir();
    const store = openPatternStore(join(dir, 'p.db'), { logger: createMemoryLogger(), clock: createVirtualClock(0), nowMs: () => (t += 0.25) });
    expect(store.recommend(PY, NO_GATES).elapsed_ms).toBe(0.25);
    store.close();
  });
});

describe('eviction details', () => {
  it('breaks equal timestamps by the smallest sample_size, then insertion order', () => {
    const fx = fixture({ caps: { soft_cap_rows: 2, hard_cap_rows: 2 } });
    const a = recordTurn(fx.store, features({ intent_tags: ['a'] }));
    recordTurn(fx.store, features({ intent_tags: ['a'] }));
    const b = recordTurn(fx.store, features({ intent_tags: ['b'] }));
    const c = recordTurn(fx.store, features({ intent_tags: ['c'] }));
    expect(c.rows_auto_evicted).toBe(1);
    expect(fx.store.fingerprints().map((f) => f.id)).toEqual([a.fingerprint_id, c.fingerprint_id]);
    expect(fx.store.fingerprints().map((f) => f.id)).not.toContain(b.fingerprint_id);
  });

  it('trims stale rows when a write reaches the soft cap, emitting age_trim then soft_cap_signal', async () => {
    const fx = fixture({ caps: { soft_cap_rows: 2, hard_cap_rows: 10, max_age_days: 30 } });
    recordTurn(fx.store, features({ intent_tags: ['old'] }));
    fx.clock.advanceUs(31 * DAY_US);
    recordTurn(fx.store, features({ intent_tags: ['b'] }));
    expect(fx.store.size().outcomes).toBe(1);
    const third = recordTurn(fx.store, features({ intent_tags: ['c'] }));
    expect(third).toMatchObject({ rows_auto_evicted: 0, over_soft_cap: true });
    await fx.bus.drain();
    expect(payloadsOf(fx.events, 'pattern.evicted')).toEqual([
      { trigger: 'age_trim', fingerprints_before: 2, fingerprints_after: 1, outcomes_before: 2, outcomes_after: 1, entries_evicted: 1, oldest_evicted_age_days: 31 },
      { trigger: 'soft_cap_signal', fingerprints_before: 2, fingerprints_after: 2, outcomes_before: 2, outcomes_after: 2, entries_evicted: 0, oldest_evicted_age_days: null },
    ]);
  });

  it('evict() trims by age and by row count, reporting what it removed', async () => {
    const fx = fixture();
    for (const tag of ['a', 'b', 'c', 'd']) {
      recordTurn(fx.store, features({ intent_tags: [tag] }));
      fx.clock.advanceUs(10 * DAY_US);
    }
    expect(fx.store.evict({ older_than_days: 25 }, CTX)).toBe(2);
    expect(fx.store.evict({ max_rows: 1 }, CTX)).toBe(1);
    expect(fx.store.evict({}, CTX)).toBe(0);
    expect(fx.store.fingerprints().map((f) => f.structural.intent_tags)).toEqual([['d']]);
    await fx.bus.drain();
    expect(payloadsOf(fx.events, 'pattern.evicted').map((p) => [p.trigger, p.entries_evicted, p.oldest_evicted_age_days])).toEqual([
      ['age_trim', 2, 40],
      ['hard_cap_evict', 1, 20],
    ]);
  });
});

describe('an unreadable file', () => {
  it('a file that is not SQLite: reads are empty, writes skipped, each with a WARN, and the file is left alone', () => {
    const dir = tempDir();
    const path = join(dir, 'patterns.db');
    writeFileSync(path, 'this is not a database, just some garbage that happens to be here\n'.repeat(20));
    const before = readFileSync(path);
    const logger = createMemoryLogger();
    const store = openPatternStore(path, { logger, clock: createVirtualClock(0) });
    expect(store.recommend(PY, NO_GATES)).toMatchObject({ chosen_model: null, alternatives: [], k_cluster_size: 0 });
    expect(() => recordTurn(store, PY)).not.toThrow();
    expect(recordTurn(store, PY).sample_size_after).toBe(0);
    expect(store.findKNearest(PY, 3)).toEqual([]);
    expect(store.fingerprints()).toEqual([]);
    expect(store.size()).toEqual({ fingerprints: 0, outcomes: 0, oldest_updated_at_us: null });
    expect(store.clear()).toBe(0);
    const ops = logger.records.filter((r) => r.level === 'warn').map((r) => r.fields?.op);
    expect(ops).toEqual(expect.arrayContaining(['recommend', 'record']));
    expect(readFileSync(path)).toEqual(before);
    store.close();
  });

  it('a pattern DB of a newer schema version is not read or changed', () => {
    const dir = tempDir();
    const path = join(dir, 'patterns.db');
    const db = new Database(path);
    db.pragma('user_version = 9');
    db.close();
    const logger = createMemoryLogger();
    const store = openPatternStore(path, { logger, clock: createVirtualClock(0) });
    expect(recordTurn(store, PY).sample_size_after).toBe(0);
    expect(logger.records.some((r) => r.level === 'warn' && String(r.fields?.reason).includes('schema version 9'))).toBe(true);
    const check = new Database(path);
    expect(check.prepare("SELECT COUNT(*) AS n FROM sqlite_master WHERE type = 'table'").get()).toEqual({ n: 0 });
    check.close();
    store.close();
  });

  it('a closed store answers empty and records nothing', () => {
    const fx = fixture();
    recordTurn(fx.store, PY, { score: 1 });
    fx.store.close();
    expect(fx.store.recommend(PY, NO_GATES).k_cluster_size).toBe(0);
    expect(recordTurn(fx.store, PY).sample_size_after).toBe(0);
    expect(fx.reopen().size().outcomes).toBe(1);
  });
});

describe('two stores on one file', () => {
  it('interleaved writes from two instances add up, and each sees the other', () => {
    const fx = fixture();
    const a = fx.store;
    const b = fx.reopen();
    for (let i = 0; i < 10; i++) {
      recordTurn(i % 2 ? a : b, PY, { model: HAIKU, score: i % 2, turn: `h${i}` });
      recordTurn(i % 3 ? b : a, PY, { model: SONNET, score: 1, turn: `s${i}` });
    }
    // b's fingerprint and outcome, then a verdict through a for a turn b recorded.
    const fromB = recordTurn(b, features({ intent_tags: ['test'] }), { model: HAIKU, turn: 'b-only' });
    expect(verdict(a, 'b-only', 'e1', 0.7)).toMatchObject({ fingerprint_id: fromB.fingerprint_id, sample_size_after: 1 });
    for (const s of [a, b]) {
      expect(s.outcomes().map((o) => [o.primary_model, o.sample_size, o.success_score_count])).toEqual(
        expect.arrayContaining([
          [HAIKU, 10, 10],
          [SONNET, 10, 10],
          [HAIKU, 1, 1],
        ]),
      );
      const near = s.findKNearest(PY, 10);
      expect(near.map((n) => n.sample_size).sort()).toEqual([1, 10, 10]);
      expect(s.recommend(PY, NO_GATES).alternatives.map((o) => [o.model, o.sample_size, o.success_score_mean])).toEqual([
        [SONNET, 10, 1],
        [HAIKU, 11, (5 + 0.7) / 11],
      ]);
    }
  });

  it("a store that only reads the file's rows (fingerprints, outcomes, size) never loads its index; its first K-NN read loads it once, as a store that loaded it at open", () => {
    const fx = fixture();
    for (let i = 0; i < 4; i++) recordTurn(fx.store, i % 2 ? PY : features({ intent_tags: ['test'] }), { model: i % 2 ? HAIKU : SONNET, turn: `t${i}` });
    let loads = 0;
    // The file's tables, counting the reads only an index load makes (its prompt rows).
    const counted = (d: PatternDb): PatternDb =>
      new Proxy(d, {
        get(t, k: keyof PatternDb) {
          if (k === 'readPromptOutcomes') loads += 1;
          const v = t[k];
          return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(t) : v;
        },
      });
    const { store } = openStructuralStore({ path: fx.path, exists: () => true, open: () => counted(openPatternDb(fx.path, 5_000)), embeddingCache: () => { throw new Error('not v2'); } }, { logger: createMemoryLogger(), clock: fx.clock }, null);
    expect(store.fingerprints()).toEqual(fx.store.fingerprints());
    expect(store.outcomes()).toEqual(fx.store.outcomes());
    expect(store.size()).toEqual(fx.store.size());
    expect(loads).toBe(0);
    expect(store.findKNearest(PY, 3)).toEqual(fx.store.findKNearest(PY, 3));
    expect(store.recommend(PY, NO_GATES).alternatives).toEqual(fx.store.recommend(PY, NO_GATES).alternatives);
    expect(loads).toBe(1);
    // Its writes then land in an index that holds the file, as they would have.
    recordTurn(store, PY, { model: SONNET, turn: 'after' });
    expect(loads).toBe(1);
    expect(store.findKNearest(PY, 3)).toEqual(fx.reopen().findKNearest(PY, 3));
    store.close();
  });

  it('two processes recording at once lose no write', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, '.metis'));
    const path = join(dir, '.metis', 'patterns.db');
    const worker = fileURLToPath(new URL('./test-support/record-worker.ts', import.meta.url));
    const exec = promisify(execFile);
    const run = (prefix: string) => exec(process.execPath, ['--import', 'tsx', worker, path, prefix, '1000'], { cwd: fileURLToPath(new URL('../..', import.meta.url)) });
    const results = await Promise.all([run('p1'), run('p2')]);
    for (const r of results) expect(JSON.parse(r.stdout)).toEqual({ recorded: 1000, warnings: [] });
    const store = openPatternStore(path, { logger: createMemoryLogger(), clock: createVirtualClock(0) });
    expect(store.outcomes().map((o) => o.sample_size)).toEqual([2000]);
    store.close();
  });
});
