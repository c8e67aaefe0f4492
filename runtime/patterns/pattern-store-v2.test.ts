// pattern-store.md §16.10 coverage (test titles carry "(§16.10 test N)"):
//   1 provider contract ........ here (hashing shape; assertEmbeddingProvider negative case)
//   2 determinism .............. here (local + test providers); embeddings/remote-providers.test.ts (openai/cohere on a loopback replay)
//   3 cosine ................... here          4 blend math ............... here
//   5 v1 vs v2 cluster tightness: the suite-level verdict runs in the harness (bench compare v1 v2);
//     the describe below only prints the figures on the workload prompts, it asserts no delta
//   6, 7, 8 cache hit / miss on text / miss on provider ... here
//   9 cache TTL eviction ....... here (store level)     10 cache LRU cap ........ here (cache level)
//   11 mixed-version K-NN ...... here          12 provider mismatch ...... here (similarity and store level)
//   13 v1 default, v2 needs a provider ... here
//   14 async short-circuit ..... here, as shipped per §16.13 (routing reads the cache only; no embedding_strategy knob)
//   15 schema bump 1 → 2 ....... here
// The blended K-NN fast path is checked against a reference implementation in blended-knn.test.ts.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { Decimal } from 'decimal.js';
import fc from 'fast-check';
import { parse } from 'yaml';
import { afterEach, describe, expect, it } from 'vitest';
import { createVirtualClock } from '../core/clock.ts';
import { createMemoryLogger } from '../core/logger.ts';
import {
  assertEmbeddingProvider,
  blendScores,
  computeStructuralFeatures,
  cosine,
  createDeterministicProvider,
  createEmbeddingCache,
  createEmbeddingProvider,
  createHashingProvider,
  openPatternStore,
  similarity,
  similarityV2,
  structuralSimilarity,
  type EmbeddingProvider,
  type PatternStoreV2,
} from './index.ts';
import { EMBEDDING_CACHE_SQL } from './pattern-schema.ts';
import { features, HAIKU, SONNET } from './test-support/feature-fixtures.ts';
import { CTX, DAY_US, T0_US, tempDir } from './test-support/store-fixtures.ts';

const open: PatternStoreV2[] = [];
afterEach(() => {
  for (const s of open.splice(0)) s.close();
});
function v2Store(path: string, provider: EmbeddingProvider, embedding = {}) {
  const clock = createVirtualClock(T0_US);
  const s = openPatternStore(path, { logger: createMemoryLogger(), clock, fingerprintVersion: 'v2', embeddingProvider: provider, embedding });
  open.push(s);
  return { store: s, clock };
}
const NO_GATES = { cost_weight: 0, min_confidence: 0, min_sample_size: 0 };
const rec = (turn: string, f = features(), model = SONNET, score: number | null = 0.9) => ({
  turn_id: turn, features: f, primary_model: model, success_score: score, cost_usd: new Decimal('0.01'), latency_ms: 100, pricing_version: 'p1',
});

describe('EmbeddingProvider contract and determinism (§16.10 tests 1–2)', () => {
  it('every shipped provider meets the contract; a provider without dim is rejected, also at store open (§16.10 test 1)', () => {
    for (const id of ['local:hashing-384', 'test:deterministic-16']) expect(() => assertEmbeddingProvider(createEmbeddingProvider(id, { env: {} }))).not.toThrow();
    expect(() => assertEmbeddingProvider(createEmbeddingProvider('openai:text-embedding-3-small', { env: { OPENAI_API_KEY: 'k' } }))).not.toThrow();
    expect(() => assertEmbeddingProvider(createEmbeddingProvider('cohere:embed-multilingual-v3.0', { env: { COHERE_API_KEY: 'k' } }))).not.toThrow();
    const { dim: _dim, ...noDim } = createHashingProvider(384);
    expect(() => assertEmbeddingProvider(noDim)).toThrow(/missing or invalid dim/);
    expect(() =>
      openPatternStore(join(tempDir(), 'p.db'), { logger: createMemoryLogger(), clock: createVirtualClock(T0_US), fingerprintVersion: 'v2', embeddingProvider: noDim as unknown as EmbeddingProvider }),
    ).toThrow(/not an EmbeddingProvider: missing or invalid dim/);
  });
  it('local:hashing-384 gives 384-dim, unit-length, byte-identical vectors for the same text and different ones for different text (§16.10 test 2)', async () => {
    const p = createEmbeddingProvider('local:hashing-384', { env: {} });
    expect([p.provider_id, p.dim]).toEqual(['local:hashing-384', 384]);
    const [a, b, c] = await p.embed(['Fix the failing test in src/auth.py', 'Fix the failing test in src/auth.py', 'Write a summary document']);
    expect(Buffer.from(a!.buffer).equals(Buffer.from(b!.buffer))).toBe(true);
    expect(a!.length).toBe(384);
    expect(cosine(a!, a!)).toBeCloseTo(1, 5);
    expect(cosine(a!, c!)).toBeLessThan(0.5);
  });
  it('test:deterministic-<dim> is deterministic and unknown ids / missing keys fail clearly (§16.10 test 2)', async () => {
    const p = createEmbeddingProvider('test:deterministic-16', { env: {} });
    expect(await p.embed(['x'])).toEqual(await p.embed(['x']));
    expect(() => createEmbeddingProvider('nope:x', { env: {} })).toThrow(/unknown embedding provider/);
    expect(() => createEmbeddingProvider('openai:text-embedding-3-small', { env: {} })).toThrow(/OPENAI_API_KEY is not set/);
  });
});

describe('local:transformers:<model> setup errors', () => {
  const setup = (installed: boolean, files: Record<string, string>) => ({ resolvePackage: () => installed, exists: (p: string) => p in files, readText: (p: string) => files[p]! });
  it('names the missing package with its install command (the real resolver: it is not installed here)', () => {
    expect(() => createEmbeddingProvider('local:transformers:all-MiniLM-L6-v2', { env: { METIS_MODELS_DIR: '/models' } })).toThrow(
      "local:transformers:all-MiniLM-L6-v2: the optional package '@huggingface/transformers' is not installed (npm install @huggingface/transformers)",
    );
  });
  it('names the missing models directory setting, then the missing model directory', () => {
    const id = 'local:transformers:all-MiniLM-L6-v2';
    expect(() => createEmbeddingProvider(id, { env: {}, transformersSetup: setup(true, {}) })).toThrow(/set METIS_MODELS_DIR to the directory holding all-MiniLM-L6-v2\//);
    expect(() => createEmbeddingProvider(id, { env: { METIS_MODELS_DIR: '/models' }, transformersSetup: setup(true, {}) })).toThrow(
      /model directory \/models\/all-MiniLM-L6-v2 is missing or has no config.json/,
    );
    const p = createEmbeddingProvider(id, { env: {}, modelsDir: '/models', transformersSetup: setup(true, { '/models/all-MiniLM-L6-v2/config.json': '{"hidden_size":384}' }) });
    expect([p.provider_id, p.dim]).toEqual([id, 384]);
  });
});

describe('cosine and the blend (§16.10 tests 3–4)', () => {
  it('cosine of unit axes is 1, 0, -1, equals the dot product of normalised inputs, and a dim mismatch throws (§16.10 test 3)', () => {
    const a = Float32Array.from([3, 4, 0]).map((x) => x / 5), b = Float32Array.from([0, 0.6, 0.8]);
    expect(cosine(a, b)).toBeCloseTo(a[1]! * b[1]!, 6);
    expect(cosine([1, 0, 0], [1, 0, 0])).toBe(1);
    expect(cosine([1, 0, 0], [0, 1, 0])).toBe(0);
    expect(cosine([1, 0, 0], [-1, 0, 0])).toBe(-1);
    expect(() => cosine([1, 0], [1, 0, 0])).toThrow(RangeError);
  });
  it('α=0 is structural, α=1 is cosine, α=0.6 blends; the workload partition and mixed-version fallback apply (§16.10 test 4)', () => {
    expect(blendScores(0.8, 0.4, 0.6)).toBeCloseTo(0.64, 12);
    const a = features({ intent_tags: ['debug'] });
    const b = features({ intent_tags: ['write'], tool_names: ['bash'] });
    const ea = new Float32Array([1, 0]), eb = new Float32Array([0.8, 0.6]);
    const s = structuralSimilarity(a, b);
    const A = { structural: a, embedding: ea, embedding_provider: 'p' }, B = { structural: b, embedding: eb, embedding_provider: 'p' };
    expect(similarityV2(A, B, { alpha: 0 })).toBeCloseTo(s, 6);
    expect(similarityV2(A, B, { alpha: 1 })).toBeCloseTo(0.8, 6);
    expect(similarityV2(A, B, { alpha: 0.6 })).toBeCloseTo(0.6 * 0.8 + 0.4 * s, 6);
    const same = { structural: { ...a, workload_id: 'w' }, embedding: ea, embedding_provider: 'p' };
    const same2 = { structural: { ...b, workload_id: 'w' }, embedding: new Float32Array([0, 1]), embedding_provider: 'p' };
    expect(similarityV2(same, same2, { alpha: 0.6 })).toBeGreaterThanOrEqual(0.85);
    expect(similarityV2(A, { structural: b }, { alpha: 1 })).toBe(s);
  });
  it('property: blended similarity stays in [-1, 1] and is symmetric', () => {
    const vec = fc.array(fc.float({ min: -1, max: 1, noNaN: true }), { minLength: 4, maxLength: 4 }).map((x) => Float32Array.from(x));
    fc.assert(
      fc.property(vec, vec, fc.double({ min: 0, max: 1, noNaN: true }), (x, y, alpha) => {
        const A = { structural: features(), embedding: x, embedding_provider: 'p' }, B = { structural: features({ has_images: true }), embedding: y, embedding_provider: 'p' };
        const s = similarityV2(A, B, { alpha });
        return s >= -1 - 1e-9 && s <= 1 + 1e-9 && Math.abs(s - similarityV2(B, A, { alpha })) < 1e-9;
      }),
    );
  });
  it('provider or dim mismatch falls back to structural only, similarity level (§16.10 test 12)', () => {
    const a = features(), b = features({ tool_names: ['bash'] });
    const s = structuralSimilarity(a, b);
    const v = new Float32Array([1, 0]);
    expect(similarityV2({ structural: a, embedding: v, embedding_provider: 'X' }, { structural: b, embedding: v, embedding_provider: 'Y' }, { alpha: 1 })).toBe(s);
    expect(similarityV2({ structural: a, embedding: v, embedding_provider: 'X' }, { structural: b, embedding: new Float32Array([1, 0, 0]), embedding_provider: 'X' }, { alpha: 1 })).toBe(s);
  });
});

describe('v1 vs v2 cluster tightness on the suite turns (§16.10 test 5)', () => {
  it('computes intra/inter similarity under v1 and v2 for workload prompts plus off-benchmark prompts', async () => {
    const root = fileURLToPath(new URL('../../workloads/', import.meta.url));
    const turns: Array<{ text: string; group: string }> = [];
    // A directory without workload.yaml (one being written) is not a workload yet.
    for (const w of readdirSync(root, { withFileTypes: true }).filter((d) => d.isDirectory() && existsSync(join(root, d.name, 'workload.yaml')))) {
      const doc = parse(readFileSync(join(root, w.name, 'workload.yaml'), 'utf8')) as { turns?: Array<{ prompt?: string }> };
      for (const t of doc.turns ?? []) if (t.prompt) turns.push({ text: t.prompt, group: w.name });
    }
    for (const text of ['What is the capital of France?', 'Summarise this meeting transcript for me', 'Translate the README into Spanish', 'Why does my docker build fail?'])
      turns.push({ text, group: `off:${text}` });
    expect(turns.length).toBeGreaterThan(10);
    const emb = createHashingProvider(384);
    const vecs = await emb.embed(turns.map((t) => t.text));
    const fps = turns.map((t, i) => ({
      group: t.group,
      structural: computeStructuralFeatures({ userMessage: t.text, history: [], toolSideEffects: {}, estimatedInputTokens: t.text.length / 4, hasImages: false, workspaceHash: 'ws', workloadId: null }),
      embedding: vecs[i]!,
      embedding_provider: emb.provider_id,
    }));
    const acc: Record<'v1' | 'v2', Record<'intra' | 'inter', [number, number]>> = { v1: { intra: [0, 0], inter: [0, 0] }, v2: { intra: [0, 0], inter: [0, 0] } };
    for (let i = 0; i < fps.length; i++)
      for (let j = i + 1; j < fps.length; j++) {
        const k = fps[i]!.group === fps[j]!.group ? 'intra' : 'inter';
        const s1 = similarity(fps[i]!.structural, fps[j]!.structural, { useWorkloadId: false });
        const s2 = similarityV2(fps[i]!, fps[j]!, { alpha: 0.6, useWorkloadId: false });
        acc.v1[k][0] += s1; acc.v1[k][1]++;
        acc.v2[k][0] += s2; acc.v2[k][1]++;
      }
    const m = (x: number[]) => x[0]! / x[1]!;
    const result = { turns: fps.length, v1: { intra: m(acc.v1.intra), inter: m(acc.v1.inter) }, v2: { intra: m(acc.v2.intra), inter: m(acc.v2.inter) } };
    const deltas = { intra: result.v2.intra - result.v1.intra, inter: result.v2.inter - result.v1.inter };
    console.log(JSON.stringify({ test5: result, deltas }));
    for (const v of [result.v1.intra, result.v1.inter, result.v2.intra, result.v2.inter]) {
      expect(v).toBeGreaterThanOrEqual(-1);
      expect(v).toBeLessThanOrEqual(1);
    }
    // v2 separates same-workload from cross-workload turns better than nothing: intra above inter.
    expect(result.v2.intra).toBeGreaterThan(result.v2.inter);
  });
});

describe('the embedding cache (§16.10 tests 6–10)', () => {
  it('the same text twice embeds once (§16.10 test 6)', async () => {
    const p = createDeterministicProvider(8);
    const { store } = v2Store(join(tempDir(), 'p.db'), p);
    await store.embedForRecording('hello');
    await store.embedForRecording('hello');
    expect(p.calls).toBe(1);
    expect(store.cachedEmbedding('hello')).not.toBeNull();
    expect(store.embeddingCacheStats()).toMatchObject({ hits: 2, rows: 1 });
  });
  it('different texts embed twice (§16.10 test 7)', async () => {
    const p = createDeterministicProvider(8);
    const { store } = v2Store(join(tempDir(), 'p.db'), p);
    await store.embedForRecording('hello');
    await store.embedForRecording('world');
    expect(p.calls).toBe(2);
  });
  it('the same text under two providers embeds once per provider: provider_id is part of the key (§16.10 test 8)', async () => {
    const path = join(tempDir(), 'p.db');
    const p8 = createDeterministicProvider(8), p9 = createDeterministicProvider(9);
    const { store: a } = v2Store(path, p8);
    await a.embedForRecording('hello');
    a.close();
    const { store: b } = v2Store(path, p9);
    expect(b.cachedEmbedding('hello')).toBeNull();
    expect(b.cachedEmbedding('hello', p8.provider_id)).not.toBeNull();
    await b.embedForRecording('hello');
    await b.embedForRecording('hello');
    expect([p8.calls, p9.calls]).toEqual([1, 1]);
  });
  it('a cached vector older than max_age_days is evicted on the next pass and the next lookup misses (§16.10 test 9)', async () => {
    const p = createDeterministicProvider(8);
    const { store, clock } = v2Store(join(tempDir(), 'p.db'), p, { cache_max_age_days: 10 });
    await store.embedForRecording('hello');
    clock.advanceUs(11 * DAY_US);
    expect(store.evictEmbeddingCache()).toBe(1);
    expect(store.cachedEmbedding('hello')).toBeNull();
    await store.embedForRecording('hello');
    expect(p.calls).toBe(2);
  });
  it('evicts rows older than max_age_days, then LRU to max_rows: one over the cap evicts exactly the oldest last use (§16.10 test 10)', () => {
    const db = new Database(':memory:');
    db.exec(EMBEDDING_CACHE_SQL);
    const clock = createVirtualClock(T0_US);
    const cache = createEmbeddingCache(db, clock, { max_rows: 3, max_age_days: 10 });
    const v = new Float32Array([1, 0]);
    cache.putMany('p', [{ text: 'old', vector: v }]);
    clock.advanceUs(11 * DAY_US);
    for (const t of ['a', 'b', 'c']) {
      clock.advanceUs(1);
      cache.putMany('p', [{ text: t, vector: v }]);
    }
    expect(cache.trim()).toBe(1);
    expect(cache.get('p', 'old')).toBeNull();
    cache.get('p', 'a'); // a is now most recently used; b is the LRU row
    clock.advanceUs(1);
    cache.putMany('p', [{ text: 'd', vector: v }]);
    expect(cache.trim()).toBe(1);
    expect(cache.get('p', 'b')).toBeNull();
    expect(cache.get('p', 'a')).not.toBeNull();
    expect(cache.stats().rows).toBe(3);
  });
});

describe('the v2 store (§16.10 tests 11, 13–15)', () => {
  it('mixed-version K-NN: v1 rows score structurally, v2 rows blended, both returned (§16.10 test 11)', async () => {
    const path = join(tempDir(), 'p.db');
    const clock = createVirtualClock(T0_US);
    const v1 = openPatternStore(path, { logger: createMemoryLogger(), clock });
    const F1 = features({ intent_tags: ['debug'] });
    v1.record(rec('t1', F1), CTX);
    v1.close();
    const p = createDeterministicProvider(8);
    const { store } = v2Store(path, p);
    const F2 = features({ intent_tags: ['write'] });
    const e = await store.embedForRecording('write the doc');
    const r = store.record({ ...rec('t2', F2), embedding: e }, CTX);
    expect(store.fingerprintEmbedding(r.fingerprint_id)).toEqual(e);
    const q = features({ intent_tags: ['debug'] });
    const got = store.findKNearest(q, 10, { embedding: e, useWorkloadId: false });
    expect(got).toHaveLength(2);
    const byFp = new Map(got.map((n) => [n.fingerprint_id, n.similarity]));
    const v1Id = store.fingerprints().find((f) => f.structural.intent_tags[0] === 'debug')!.id;
    expect(byFp.get(v1Id)).toBe(structuralSimilarity(q, F1));
    expect(byFp.get(r.fingerprint_id)).toBeCloseTo(0.6 * 1 + 0.4 * structuralSimilarity(q, F2), 5);
  });
  it('a row embedded under provider X scores structural-only for a store on provider Y of another dim (§16.10 test 12)', async () => {
    const path = join(tempDir(), 'p.db');
    const px = createDeterministicProvider(8);
    const { store: x } = v2Store(path, px);
    const F = features({ intent_tags: ['debug'] });
    x.record({ ...rec('t1', F), embedding: await x.embedForRecording('fix it') }, CTX);
    x.close();
    const py = createDeterministicProvider(16);
    const { store: y } = v2Store(path, py);
    const q = features({ intent_tags: ['debug', 'test'] });
    const [n] = y.findKNearest(q, 1, { embedding: (await py.embed(['fix it']))[0]!, useWorkloadId: false });
    expect(n!.similarity).toBe(structuralSimilarity(q, F));
    expect(y.fingerprintEmbedding(n!.fingerprint_id)).toBeNull();
  });
  it('v1 is the default; v2 without a provider throws at open (§16.10 test 13)', () => {
    const path = join(tempDir(), 'p.db');
    const s = openPatternStore(path, { logger: createMemoryLogger(), clock: createVirtualClock(T0_US) });
    expect('fingerprintVersion' in s).toBe(false);
    s.close();
    expect(() => openPatternStore(path, { logger: createMemoryLogger(), clock: createVirtualClock(T0_US), fingerprintVersion: 'v2' })).toThrow(/embedding provider/);
  });
  it('routing reads the cache only: a miss routes on v1, the recording path fills it, the next route uses v2 (§16.10 test 14, as §16.13 ships it)', async () => {
    const p = createDeterministicProvider(8);
    const { store } = v2Store(join(tempDir(), 'p.db'), p);
    const text = 'refactor the parser module';
    // Two structurally identical fingerprints differ only by embedding: v1 cannot tell them apart, v2 can.
    const Fa = features({ intent_tags: ['refactor'] }), Fb = features({ intent_tags: ['refactor'], tool_names: ['edit'] });
    store.record({ ...rec('a1', Fa, HAIKU, 0.2), embedding: (await p.embed(['unrelated words']))[0]! }, CTX);
    const calls = p.calls;
    expect(store.cachedEmbedding(text)).toBeNull();
    expect(p.calls).toBe(calls);
    const before = store.recommend(Fb, NO_GATES, { embedding: store.cachedEmbedding(text) });
    expect(before).toEqual({ ...store.recommend(Fb, NO_GATES), elapsed_ms: before.elapsed_ms });
    const e = await store.embedForRecording(text);
    store.record({ ...rec('b1', Fb, SONNET, 0.9), embedding: e }, CTX);
    const cached = store.cachedEmbedding(text);
    expect(cached).toEqual(e);
    const after = store.recommend(Fb, NO_GATES, { embedding: cached });
    expect(after.chosen_model).toBe(SONNET);
    expect(store.findKNearest(Fb, 1, { embedding: cached })[0]!.similarity).toBeCloseTo(1, 5);
  });
  it('first v2 open bumps the schema to 2 and creates embedding_cache without touching rows; v1 reopens it (§16.10 test 15)', () => {
    const path = join(tempDir(), 'p.db');
    const clock = createVirtualClock(T0_US);
    const v1 = openPatternStore(path, { logger: createMemoryLogger(), clock });
    v1.record(rec('t1'), CTX);
    v1.close();
    const snap = (d: Database.Database) => JSON.stringify([d.prepare('SELECT * FROM fingerprints').all(), d.prepare('SELECT * FROM outcomes').all()]);
    let raw = new Database(path);
    const rowsBefore = snap(raw);
    expect(raw.prepare("SELECT name FROM sqlite_master WHERE name = 'embedding_cache'").get()).toBeUndefined();
    raw.close();
    const { store } = v2Store(path, createHashingProvider());
    store.close();
    raw = new Database(path);
    expect(raw.pragma('user_version', { simple: true })).toBe(2);
    expect(raw.prepare("SELECT value FROM store_meta WHERE key = 'schema_version'").pluck().get()).toBe('2');
    expect(raw.prepare("SELECT name FROM sqlite_master WHERE name = 'embedding_cache'").get()).toBeDefined();
    expect(snap(raw)).toBe(rowsBefore);
    raw.close();
    const logger = createMemoryLogger();
    const again = openPatternStore(path, { logger, clock });
    expect(again.outcomes()).toHaveLength(1);
    expect(again.record(rec('t2'), CTX).sample_size_after).toBe(2);
    again.close();
  });
});
