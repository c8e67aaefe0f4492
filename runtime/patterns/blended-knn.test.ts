// The v2 K-NN fast path (slot-aligned embedding matrix + SIMD dots + bounded heap, in the feature index)
// must answer exactly what the first implementation did: structural score of every outcome, float32 dot
// per embedded fingerprint, blend, workload partition, full sort, slice. The reference below is that
// straightforward algorithm over the store's public reads.
import { join } from 'node:path';
import { Decimal } from 'decimal.js';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { createVirtualClock } from '../core/clock.ts';
import { createMemoryLogger } from '../core/logger.ts';
import { createBoundedTopK } from './bounded-top-k.ts';
import { createEmbeddingRows } from './embeddings/embedding-rows.ts';
import { l2Normalize, type EmbeddingProvider } from './embeddings/embedding-provider.ts';
import { dotsJs } from './embeddings/simd-dots.ts';
import { openPatternStore, type NeighborMatch, type PatternStore, type PatternStoreV2, type StructuralFeatures } from './index.ts';
import { structuralSimilarity } from './similarity.ts';
import { applyWorkloadPartition, blendScores } from './similarity-v2.ts';
import { createFeatureGenerator, features, HAIKU, OPUS, SONNET, seededRandom } from './test-support/feature-fixtures.ts';
import { CTX, T0_US, tempDir } from './test-support/store-fixtures.ts';

const open: PatternStore[] = [];
afterEach(() => {
  for (const s of open.splice(0)) s.close();
});

const provider = (dim: number): EmbeddingProvider => ({ provider_id: `test:random-${dim}`, dim, max_input_tokens: 0, embed: () => Promise.resolve([]), close: () => Promise.resolve() });

/** The first v2 implementation's float32 dot: four float64 lanes, rounded once. */
function oldDot(a: Float32Array, b: Float32Array): number {
  const out = new Float32Array(1);
  dotsJs(a, a.length, 1, b, out);
  return out[0]!;
}

function referenceKnn(store: PatternStoreV2, q: StructuralFeatures, k: number, emb: Float32Array, useWorkloadId: boolean, alpha: number): NeighborMatch[] {
  const fps = new Map(store.fingerprints().map((f) => [f.id, f.structural]));
  const all = store.outcomes().map((o) => {
    const f = fps.get(o.fingerprint_id)!;
    const structural = structuralSimilarity(q, f);
    const v = store.fingerprintEmbedding(o.fingerprint_id);
    const base = v && v.length === emb.length ? blendScores(oldDot(v, emb), structural, alpha) : structural;
    return {
      fingerprint_id: o.fingerprint_id,
      primary_model: o.primary_model,
      similarity: applyWorkloadPartition(base, q, f, useWorkloadId),
      sample_size: o.sample_size,
      success_score_mean: o.success_score_mean,
      success_score_count: o.success_score_count,
      avg_cost_usd: o.avg_cost_usd,
      avg_latency_ms: o.avg_latency_ms,
    };
  });
  all.sort((a, b) => b.similarity - a.similarity || b.sample_size - a.sample_size || (a.fingerprint_id < b.fingerprint_id ? -1 : a.fingerprint_id > b.fingerprint_id ? 1 : a.primary_model < b.primary_model ? -1 : 1));
  return all.slice(0, k);
}

describe('v2 blended K-NN fast path', () => {
  it('equals the reference on seeded random stores (mixed v1/v2 rows, shared vectors for ties, dims on and off the SIMD path, foreign writes)', () => {
    for (let seed = 1; seed <= 24; seed++) {
      const rnd = seededRandom(seed);
      const dim = seed % 3 === 0 ? 6 : 8; // 6 is not a multiple of 4: the JS kernel
      const gen = createFeatureGenerator(seed);
      const pool = Array.from({ length: 12 }, () => gen());
      const vec = () => l2Normalize(Float32Array.from({ length: dim }, () => Math.round(rnd() * 6 - 3)));
      const vecs = Array.from({ length: 6 }, vec);
      const path = join(tempDir(), 'p.db');
      const clock = createVirtualClock(T0_US);
      const alpha = [0, 0.6, 1, rnd()][seed % 4]!;
      const store = openPatternStore(path, { logger: createMemoryLogger(), clock, fingerprintVersion: 'v2', embeddingProvider: provider(dim), embedding: { alpha }, caps: { soft_cap_rows: 40, hard_cap_rows: 60 } });
      open.push(store);
      const n = 20 + Math.floor(rnd() * 80);
      for (let i = 0; i < n; i++) {
        clock.advanceUs(1 + Math.floor(rnd() * 3));
        const f = rnd() < 0.5 ? pool[Math.floor(rnd() * pool.length)]! : gen();
        const embedding = rnd() < 0.7 ? vecs[Math.floor(rnd() * vecs.length)]! : null;
        const model = [HAIKU, SONNET, OPUS][Math.floor(rnd() * 3)]!;
        store.record({ turn_id: `t${i}`, features: f, primary_model: model, success_score: rnd() < 0.2 ? null : rnd(), cost_usd: new Decimal('0.001'), latency_ms: 5, pricing_version: 'p', embedding }, CTX);
        if (i === Math.floor(n / 2)) {
          // Another connection's commit: the mirror (features and embeddings) must reload.
          const other = openPatternStore(path, { logger: createMemoryLogger(), clock, fingerprintVersion: 'v2', embeddingProvider: provider(dim) });
          other.record({ turn_id: `foreign${i}`, features: gen(), primary_model: SONNET, success_score: 0.5, cost_usd: new Decimal('0.002'), latency_ms: 7, pricing_version: 'p', embedding: vec() }, CTX);
          other.close();
        }
      }
      for (let j = 0; j < 10; j++) {
        const q = rnd() < 0.3 ? pool[Math.floor(rnd() * pool.length)]! : rnd() < 0.5 ? gen() : features({ workload_id: rnd() < 0.5 ? 'not-stored' : null });
        const emb = rnd() < 0.8 ? vecs[Math.floor(rnd() * vecs.length)]! : new Float32Array(dim + 1);
        const k = Math.floor(rnd() * 15);
        const useWorkloadId = rnd() < 0.7;
        expect(store.findKNearest(q, k, { embedding: emb, useWorkloadId })).toEqual(referenceKnn(store, q, k, emb, useWorkloadId, alpha));
      }
      // Above k = 32 the index selects with a heap, not its insertion-sorted array: the same answer.
      for (let j = 0; j < 8; j++) {
        const q = rnd() < 0.5 ? pool[Math.floor(rnd() * pool.length)]! : gen();
        const emb = vecs[Math.floor(rnd() * vecs.length)]!;
        const k = 33 + Math.floor(rnd() * 12);
        expect(store.findKNearest(q, k, { embedding: emb, useWorkloadId: true })).toEqual(referenceKnn(store, q, k, emb, true, alpha));
      }
    }
  });
});

describe('bounded top-K', () => {
  it('property: keeps exactly the first k of a full sort', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -5, max: 5 })), fc.integer({ min: 0, max: 12 }), (xs, k) => {
        const items = xs.map((v, i) => ({ v, i }));
        const cmp = (a: { v: number; i: number }, b: { v: number; i: number }) => b.v - a.v || a.i - b.i;
        const top = createBoundedTopK(k, cmp);
        for (const x of items) top.offer(x);
        expect(top.sorted()).toEqual([...items].sort(cmp).slice(0, k));
      }),
    );
  });
});

describe('embedding rows (SIMD kernel)', () => {
  it('property: SIMD dots equal the JS loop bit for bit, across growth and swap-remove moves', () => {
    const dim = 12;
    const vecArb = fc.array(fc.float({ min: -1, max: 1, noNaN: true }), { minLength: dim, maxLength: dim }).map((x) => Float32Array.from(x));
    fc.assert(
      fc.property(fc.array(vecArb, { minLength: 1, maxLength: 150 }), vecArb, (rows, q) => {
        const m = createEmbeddingRows(dim, 4);
        rows.forEach((r, s) => m.set(s, r));
        m.move(rows.length - 1, 0);
        const live = [rows[rows.length - 1]!, ...rows.slice(1, -1)];
        const got = Array.from(m.dots(q, live.length));
        const want = new Float32Array(live.length);
        dotsJs(Float32Array.from(live.flatMap((r) => Array.from(r))), dim, live.length, q, want);
        expect(got).toEqual(Array.from(want));
        expect(m.count).toBe(live.length);
      }),
      { numRuns: 50 },
    );
  });
});
