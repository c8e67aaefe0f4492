// The K-cluster rows a recommendation carries out to pattern.matched (issue 15 item 4).
import { Decimal } from 'decimal.js';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { eventCatalog } from '../events/index.ts';
import { summarizeNeighbors } from './cluster-scoring.ts';
import { patternMatchedPayload, type NeighborMatch, type RecommendOptions } from './index.ts';
import { features, HAIKU, SONNET } from './test-support/feature-fixtures.ts';
import { makeStore, recordTurn, type StoreFixture } from './test-support/store-fixtures.ts';

const fixtures: StoreFixture[] = [];
afterEach(() => {
  for (const f of fixtures.splice(0)) f.cleanup();
});
function fixture(): StoreFixture {
  const f = makeStore();
  fixtures.push(f);
  return f;
}

const NO_GATES: RecommendOptions = { cost_weight: 0, min_confidence: 0, min_sample_size: 0 };
const PY = features({ file_extensions: ['.py'], intent_tags: ['debug'], tool_names: ['read_file'], side_effect_classes: ['read'] });
const PY_TS = features({ file_extensions: ['.py', '.ts'], intent_tags: ['debug'], tool_names: ['read_file', 'grep'], side_effect_classes: ['read'] });
const isValid = (payload: unknown) => eventCatalog().validator('pattern.matched')!(payload);

const row = (similarity: number, model = HAIKU): NeighborMatch => ({
  fingerprint_id: `fp_${similarity}`,
  primary_model: model,
  similarity,
  sample_size: 3,
  success_score_mean: 0.5,
  success_score_count: 3,
  avg_cost_usd: new Decimal('0.001'),
  avg_latency_ms: 100,
});

describe('recommend → neighbors', () => {
  it('lists the scored K-cluster, nearest first, as many as k_cluster_size, and pattern.matched carries them valid', () => {
    const { store } = fixture();
    for (let i = 0; i < 3; i++) recordTurn(store, PY, { model: SONNET, score: 0.9 });
    recordTurn(store, PY_TS, { model: HAIKU, score: 0.4 });
    const rec = store.recommend(PY, NO_GATES);
    expect(rec.chosen_model).toBe(SONNET);
    expect(rec.neighbors).toHaveLength(rec.k_cluster_size);
    expect(rec.neighbors!.map((n) => n.primary_model)).toEqual([SONNET, HAIKU]);
    const [near, far] = rec.neighbors!;
    expect(near).toEqual({ fingerprint_id: store.fingerprints().find((f) => f.structural.file_extensions.length === 1)!.id, primary_model: SONNET, similarity: 1, sample_size: 3, success_score_mean: 0.9 });
    expect(far!.similarity).toBeLessThan(1);
    expect(far!.similarity).toBe(Number(far!.similarity.toFixed(4)));
    const payload = patternMatchedPayload(rec)!;
    expect(payload.neighbors).toEqual(rec.neighbors);
    expect(isValid(payload)).toBe(true);
    expect(isValid({ ...payload, neighbors: [{ ...near, avg_cost_usd: '0.001' }] })).toBe(false);
    expect(isValid({ ...payload, neighbors: [{ ...near, similarity: undefined }] })).toBe(false);
  });

  it('is capped at K and drops rows under min_similarity, as scoring does', () => {
    const { store } = fixture();
    recordTurn(store, PY, { model: SONNET, score: 0.9 });
    recordTurn(store, PY_TS, { model: HAIKU, score: 0.4 });
    expect(store.recommend(PY, { ...NO_GATES, k: 1 }).neighbors!.map((n) => n.primary_model)).toEqual([SONNET]);
    const floored = store.recommend(PY, { ...NO_GATES, min_similarity: 0.9999 });
    expect(floored.k_cluster_size).toBe(1);
    expect(floored.neighbors!.map((n) => n.primary_model)).toEqual([SONNET]);
  });

  it('an empty store answers no neighbours and no pattern.matched', () => {
    const { store } = fixture();
    const rec = store.recommend(PY, NO_GATES);
    expect(rec.neighbors ?? []).toEqual([]);
    expect(patternMatchedPayload(rec)).toBeNull();
  });

  it('a recommendation without neighbours yields a payload without the key (older stores, still valid)', () => {
    const payload = patternMatchedPayload({ chosen_model: SONNET, confidence: 0.5, alternatives: [], sample_size: 5, k_cluster_size: 2, fingerprint_id: null, elapsed_ms: 0 })!;
    expect('neighbors' in payload).toBe(false);
    expect(isValid(payload)).toBe(true);
  });
});

describe('summarizeNeighbors', () => {
  it('rounds similarity to 4 decimals (within half a unit) and keeps order and the other fields', () => {
    fc.assert(
      fc.property(fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 12 }), (sims) => {
        const out = summarizeNeighbors(sims.map((s) => row(s)), NO_GATES);
        expect(out).toHaveLength(sims.length);
        out.forEach((n, i) => {
          expect(Math.abs(n.similarity - sims[i]!)).toBeLessThanOrEqual(0.00005 + 1e-12);
          expect(n.similarity).toBe(Number(n.similarity.toFixed(4)));
          expect(n).toMatchObject({ fingerprint_id: `fp_${sims[i]}`, primary_model: HAIKU, sample_size: 3, success_score_mean: 0.5 });
          expect(Object.keys(n).sort()).toEqual(['fingerprint_id', 'primary_model', 'sample_size', 'similarity', 'success_score_mean']);
        });
      }),
    );
  });

  it('keeps only the rows at or above min_similarity', () => {
    expect(summarizeNeighbors([row(0.9), row(0.4), row(0.5)], { ...NO_GATES, min_similarity: 0.5 }).map((n) => n.similarity)).toEqual([0.9, 0.5]);
  });
});
