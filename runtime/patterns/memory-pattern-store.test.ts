// The in-memory store's contract: driven by the same random sequence of calls as a SQLite store on a
// fresh file (same clock, ids and provider), it answers exactly what the SQLite store answers, call by
// call, with the same events, and holds the same rows at the end. Small caps make eviction, and a small
// embedding cache makes its trims, part of most sequences; batches that throw exercise the rollback.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { Decimal } from 'decimal.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createVirtualClock, type VirtualClock } from '../core/clock.ts';
import { createIdFactory } from '../core/ids.ts';
import { createMemoryLogger } from '../core/logger.ts';
import { createEventBus, type BusEvent } from '../events/index.ts';
import { createEmbeddingProvider } from './embeddings/index.ts';
import { openMemoryPatternStore } from './memory-pattern-store.ts';
import type { PatternStore, RecommendOptions } from './pattern-store.ts';
import { openPatternStore } from './sqlite-pattern-store.ts';
import type { PatternStoreV2 } from './v2-pattern-store.ts';
import { arbFeatures } from './test-support/arbitraries.ts';
import { T0_US, tempDir } from './test-support/store-fixtures.ts';
import { HAIKU, OPUS, SONNET } from './test-support/feature-fixtures.ts';
import { compareCodePoints } from './memory-pattern-tables.ts';
import type { StructuralFeatures } from './structural-features.ts';

const CTX = { session_id: 's', turn_id: 't', parent_event_id: null };
const CAPS = { soft_cap_rows: 5, hard_cap_rows: 8, max_age_days: 30 };
const TEXTS = ['fix the parser', 'write a test', 'refactor the cache', 'explain this', 'rename a file', 'add docs'];

type Op =
  | { kind: 'record'; f: number; model: string; score: number | null; cost: number; latency: number; turn: number; text: number; prompt: number | null }
  | { kind: 'verdict'; turn: number; score: number; confidence: number; evalId: number; gate: number }
  | { kind: 'advance'; days: number }
  | { kind: 'evict'; maxRows: number | undefined; days: number | undefined }
  | { kind: 'clear' }
  | { kind: 'query'; f: number; k: number; text: number | null; opts: RecommendOptions }
  | { kind: 'cache'; text: number }
  | { kind: 'batch'; ops: Op[]; fail: boolean };

const arbLeaf: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('record' as const),
      f: fc.nat(7),
      model: fc.constantFrom(HAIKU, SONNET, OPUS),
      score: fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: null }),
      cost: fc.integer({ min: 0, max: 50_000 }),
      latency: fc.integer({ min: 0, max: 5_000 }),
      turn: fc.nat(30),
      text: fc.nat(TEXTS.length - 1),
      // The turn's prompt (learned scoring's row), or none.
      prompt: fc.option(fc.nat(TEXTS.length - 1), { nil: null }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('verdict' as const),
      turn: fc.nat(30),
      score: fc.double({ min: 0, max: 1, noNaN: true }),
      confidence: fc.double({ min: 0, max: 1, noNaN: true }),
      evalId: fc.nat(9),
      gate: fc.constantFrom(0, 0.5),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('advance' as const), days: fc.constantFrom(0, 0.000001, 1, 12, 40) }) },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('evict' as const), maxRows: fc.option(fc.nat(6), { nil: undefined }), days: fc.option(fc.constantFrom(0, 5, 20), { nil: undefined }) }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('clear' as const) }) },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('query' as const),
      f: fc.nat(7),
      k: fc.integer({ min: 0, max: 6 }),
      text: fc.option(fc.nat(TEXTS.length - 1), { nil: null }),
      opts: fc.record({
        cost_weight: fc.constantFrom(0, 0.1, 0.5),
        min_confidence: fc.constantFrom(0, 0.05),
        min_sample_size: fc.constantFrom(0, 2),
        scoring: fc.constantFrom('uniform' as const, 'similarity_weighted' as const, 'expected_gain' as const),
        min_similarity: fc.constantFrom(0, 0.5),
      }),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('cache' as const), text: fc.nat(TEXTS.length - 1) }) },
);

const arbOps: fc.Arbitrary<Op[]> = fc.array(
  fc.oneof({ weight: 8, arbitrary: arbLeaf }, { weight: 1, arbitrary: fc.record({ kind: fc.constant('batch' as const), ops: fc.array(arbLeaf, { maxLength: 6 }), fail: fc.boolean() }) }),
  { maxLength: 40 },
);

interface Side {
  store: PatternStore;
  clock: VirtualClock;
  events: BusEvent[];
  logs: { level: string; msg: string }[];
}

/** One store with its own clock, bus, logger and ids, all started alike. */
function side(open: (o: { logger: ReturnType<typeof createMemoryLogger>; clock: VirtualClock; bus: ReturnType<typeof createEventBus>; ids: ReturnType<typeof createIdFactory> }) => PatternStore): Side {
  const clock = createVirtualClock(T0_US);
  const logger = createMemoryLogger();
  const bus = createEventBus({ mode: 'strict', logger, clock });
  const events: BusEvent[] = [];
  bus.subscribe({ name: 'recorder', filter: {}, fast_path: true, handler: (e) => void events.push(e) });
  // Same time and same "random" bytes on both sides: the same fingerprint ids in the same order.
  const ids = createIdFactory(
    () => Math.floor(clock.nowUs() / 1000),
    (b) => b.fill(7),
  );
  return { store: open({ logger, clock, bus, ids }), clock, events, logs: logger.records };
}

/** Applies `op` to one side, answering what the caller can observe (thrown errors included). */
async function apply(s: Side, op: Op, features: readonly StructuralFeatures[], v2: boolean): Promise<unknown> {
  const st = s.store;
  const vst = st as PatternStoreV2;
  const observe = async (fn: () => unknown): Promise<unknown> => {
    try {
      return await fn();
    } catch (e) {
      return { threw: (e as Error).message };
    }
  };
  switch (op.kind) {
    case 'record':
      return observe(async () => {
        const input = {
          turn_id: `turn-${op.turn}`,
          features: features[op.f]!,
          primary_model: op.model,
          success_score: op.score,
          cost_usd: new Decimal(op.cost).div(1e6),
          latency_ms: op.latency,
          pricing_version: '2026-05-01',
          ...(op.prompt !== null ? { prompt_text: TEXTS[op.prompt]! } : {}),
        };
        return v2 ? vst.record({ ...input, embedding: await vst.embedForRecording(TEXTS[op.text]!) }, CTX) : st.record(input, CTX);
      });
    case 'verdict':
      return observe(() =>
        st.updateScore({ turn_id: `turn-${op.turn}`, score: op.score, confidence: op.confidence, eval_id: `e${op.evalId}`, pricing_version: null, min_eval_confidence: op.gate }, CTX),
      );
    case 'advance':
      s.clock.advanceUs(Math.round(op.days * 86_400_000_000));
      return null;
    case 'evict':
      return observe(() => st.evict({ ...(op.maxRows !== undefined ? { max_rows: op.maxRows } : {}), ...(op.days !== undefined ? { older_than_days: op.days } : {}) }, CTX));
    case 'clear':
      return observe(() => st.clear(CTX));
    case 'query': {
      const f = features[op.f]!;
      const q = v2 && op.text !== null ? { embedding: vst.cachedEmbedding(TEXTS[op.text]!) } : {};
      const rec = v2 ? vst.recommend(f, op.opts, q) : st.recommend(f, op.opts);
      const ev = v2 ? vst.evidence(f, { k: op.k, scoring: op.opts.scoring }, q) : st.evidence!(f, { k: op.k, scoring: op.opts.scoring });
      return {
        knn: v2 ? vst.findKNearest(f, op.k, q) : st.findKNearest(f, op.k),
        unblended: st.findKNearest(f, op.k, { useWorkloadId: false }),
        rec: { ...rec, elapsed_ms: 0 },
        ev: { ...ev, elapsed_ms: 0 },
        size: st.size(),
        prompts: st.promptOutcomes?.(),
      };
    }
    case 'cache':
      if (!v2) return null;
      return { vector: vst.cachedEmbedding(TEXTS[op.text]!), stats: vst.embeddingCacheStats() };
    case 'batch':
      return observe(() =>
        st.batch(async () => {
          const out: unknown[] = [];
          for (const o of op.ops) out.push(await apply(s, o, features, v2));
          if (op.fail) throw new Error('batch body failed');
          return out;
        }),
      );
  }
}

/** The rows a store holds, as its public reads give them. */
const rows = (st: PatternStore) => ({ fingerprints: st.fingerprints(), outcomes: st.outcomes(), size: st.size(), prompts: st.promptOutcomes?.() });
const eventView = (es: readonly BusEvent[]) => es.map((e) => ({ type: e.type, payload: e.payload }));

describe('in-memory pattern store ≡ SQLite pattern store', () => {
  for (const v2 of [false, true])
    it(`answers every call as a fresh SQLite store does (${v2 ? 'v2, with embeddings and a 3-row cache' : 'v1'})`, async () => {
      const provider = createEmbeddingProvider('test:deterministic-16', { env: {} });
      const embedding = { cache_max_rows: 3, cache_max_age_days: 20 };
      await fc.assert(
        fc.asyncProperty(fc.array(arbFeatures, { minLength: 8, maxLength: 8 }), arbOps, async (features, ops) => {
          const dir = tempDir();
          const sqlite = side((o) =>
            v2 ? openPatternStore(join(dir, 'p.db'), { ...o, caps: CAPS, fingerprintVersion: 'v2', embeddingProvider: provider, embedding }) : openPatternStore(join(dir, 'p.db'), { ...o, caps: CAPS }),
          );
          const memory = side((o) =>
            v2 ? openMemoryPatternStore('mem', { ...o, caps: CAPS, fingerprintVersion: 'v2', embeddingProvider: provider, embedding }) : openMemoryPatternStore('mem', { ...o, caps: CAPS }),
          );
          try {
            expect(memory.store.promptOutcomes).toBeTypeOf('function');
            for (const op of ops) expect(await apply(memory, op, features, v2)).toEqual(await apply(sqlite, op, features, v2));
            expect(rows(memory.store)).toEqual(rows(sqlite.store));
            expect(eventView(memory.events)).toEqual(eventView(sqlite.events));
            // Warnings name the store (file path vs label), so compare what they say.
            expect(memory.logs.map((l) => `${l.level} ${l.msg}`)).toEqual(sqlite.logs.map((l) => `${l.level} ${l.msg}`));
          } finally {
            sqlite.store.close();
            memory.store.close();
            rmSync(dir, { recursive: true, force: true });
          }
        }),
        { seed: 2028, numRuns: 80 },
      );
    }, 60_000);

  it('a store with no write reads as empty, and closing it makes reads empty', () => {
    const s = openMemoryPatternStore('m', { logger: createMemoryLogger(), clock: createVirtualClock(T0_US) });
    expect(s.size()).toEqual({ fingerprints: 0, outcomes: 0, oldest_updated_at_us: null });
    s.record({ turn_id: 't', features: { ...fcSample(), workload_id: null }, primary_model: HAIKU, success_score: 1, cost_usd: new Decimal('0.01'), latency_ms: 1, pricing_version: 'v' }, CTX);
    expect(s.size().outcomes).toBe(1);
    s.close();
    expect(s.size().outcomes).toBe(0);
    expect(s.findKNearest(fcSample(), 3)).toEqual([]);
  });

  it('orders strings as SQLite BINARY does (code points, not UTF-16 units)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), fc.string({ unit: 'grapheme' }), (a, b) => {
        expect(Math.sign(compareCodePoints(a, b))).toBe(Math.sign(Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'))));
      }),
      { seed: 7, numRuns: 300 },
    );
  });
});

function fcSample() {
  return fc.sample(arbFeatures, { seed: 1, numRuns: 1 })[0]!;
}
