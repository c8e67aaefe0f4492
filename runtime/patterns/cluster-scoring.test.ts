import { Decimal } from 'decimal.js';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { routingFileValidator } from '../routing/routing-config.ts';
import { neighborWeight, scoreCluster, SIMILARITY_BANDWIDTH, type NeighborMatch, type RecommendOptions } from './index.ts';
import { features, HAIKU, OPUS, SONNET } from './test-support/feature-fixtures.ts';
import { makeStore, recordTurn, type StoreFixture } from './test-support/store-fixtures.ts';

const OPTS: RecommendOptions = { cost_weight: 0.05, min_confidence: 0.05, min_sample_size: 5 };

function row(model: string, similarity: number, success: number, n: number, cost: string): NeighborMatch {
  return {
    fingerprint_id: `fp_${model}_${similarity}`,
    primary_model: model,
    similarity,
    sample_size: n,
    success_score_mean: success,
    success_score_count: n,
    avg_cost_usd: new Decimal(cost),
    avg_latency_ms: 100,
  };
}

/**
 * The inversion of issue 13: the workload's own rows (similarity 0.95 under the §5.3 workload blend)
 * say haiku and sonnet fail alike, so the cheaper one should win; eight rows of other workloads
 * (similarity 0.15) say sonnet succeeds where haiku does not.
 */
const TIE_WITH_SPILL: NeighborMatch[] = [
  row(HAIKU, 0.95, 0, 3, '0.002'),
  row(SONNET, 0.95, 0, 3, '0.02'),
  ...[0.15, 0.14, 0.13, 0.12].flatMap((s) => [row(SONNET, s, 1, 3, '0.02'), row(HAIKU, s, 0.2, 3, '0.002')]),
];

const arbRow = fc
  .record({
    model: fc.constantFrom(HAIKU, SONNET, OPUS),
    similarity: fc.double({ min: 0, max: 1, noNaN: true }),
    success: fc.double({ min: 0, max: 1, noNaN: true }),
    n: fc.integer({ min: 1, max: 50 }),
    scored: fc.integer({ min: 0, max: 50 }),
    cost: fc.integer({ min: 0, max: 100_000 }),
  })
  .map((r) => ({ ...row(r.model, r.similarity, r.success, r.n, new Decimal(r.cost).div(1e6).toFixed()), success_score_count: Math.min(r.scored, r.n) }));
const arbCluster = fc.array(arbRow, { maxLength: 12 });
const arbOpts = fc.record({
  cost_weight: fc.double({ min: 0, max: 1, noNaN: true }),
  min_confidence: fc.double({ min: 0, max: 1, noNaN: true }),
  min_sample_size: fc.integer({ min: 1, max: 20 }),
});

describe('pattern.scoring: uniform is the spec (§8.3-8.4)', () => {
  it('scoring uniform, no scoring and min_similarity 0 give the identical verdict', () => {
    fc.assert(
      fc.property(arbCluster, arbOpts, (cluster, opts) => {
        const spec = scoreCluster(cluster, opts);
        expect(scoreCluster(cluster, { ...opts, scoring: 'uniform' })).toEqual(spec);
        expect(scoreCluster(cluster, { ...opts, scoring: 'uniform', min_similarity: 0 })).toEqual(spec);
      }),
    );
  });

  it('lets other workloads break the same-workload tie (the inversion the option exists for)', () => {
    const v = scoreCluster(TIE_WITH_SPILL, OPTS);
    expect(v.chosen_model).toBe(SONNET);
    // Sample-weighted means over all ten rows: sonnet 12/15 of its samples succeed, haiku 0.2·12/15.
    expect(v.alternatives.find((a) => a.model === SONNET)?.success_score_mean).toBeCloseTo(0.8, 12);
    expect(v.alternatives.find((a) => a.model === HAIKU)?.success_score_mean).toBeCloseTo(0.16, 12);
  });
});

describe('pattern.scoring: similarity_weighted', () => {
  it('keeps a same-workload tie from being broken by other workloads: the cheaper model wins', () => {
    const v = scoreCluster(TIE_WITH_SPILL, { ...OPTS, scoring: 'similarity_weighted' });
    expect(v.chosen_model).toBe(HAIKU);
    const sonnet = v.alternatives.find((a) => a.model === SONNET)!;
    // Eight far rows move sonnet's mean by less than the cost term (0.05) can outweigh.
    expect(sonnet.success_score_mean).toBeLessThan(0.01);
    // The gate still counts raw samples: 15 per model.
    expect(v.sample_size).toBe(15);
    expect(v.k_cluster_size).toBe(10);
  });

  it('weighs a neighbour exp(-(1 - s)/h): 1 at s = 1, e^-1 per h below, and 1 everywhere when uniform', () => {
    expect(neighborWeight(1, 'similarity_weighted')).toBe(1);
    expect(neighborWeight(1 - SIMILARITY_BANDWIDTH, 'similarity_weighted')).toBeCloseTo(Math.exp(-1), 12);
    expect(neighborWeight(0.15, 'similarity_weighted') / neighborWeight(0.85, 'similarity_weighted')).toBeLessThan(1e-3);
    expect(neighborWeight(0.2, 'uniform')).toBe(1);
    expect(neighborWeight(0.2, undefined)).toBe(1);
  });

  it('equals uniform when every neighbour is equally similar (the weights cancel)', () => {
    fc.assert(
      fc.property(arbCluster, arbOpts, fc.double({ min: 0, max: 1, noNaN: true }), (cluster, opts, s) => {
        const flat = cluster.map((n) => ({ ...n, similarity: s }));
        const u = scoreCluster(flat, opts);
        const w = scoreCluster(flat, { ...opts, scoring: 'similarity_weighted' });
        // Same models, each at the same score; the order may differ only between scores equal to 9 digits, where
        // the weighting's rounding decides a tie (a success mean of 5e-324 weighted by e^-1/h underflows to 0).
        const uScore = new Map(u.alternatives.map((a) => [a.model, a.score]));
        expect(new Set(w.alternatives.map((a) => a.model))).toEqual(new Set(uScore.keys()));
        const uSamples = new Map(u.alternatives.map((a) => [a.model, a.sample_size]));
        for (const a of w.alternatives) {
          expect(a.score).toBeCloseTo(uScore.get(a.model)!, 9);
          expect(a.sample_size).toBe(uSamples.get(a.model));
        }
        for (let i = 1; i < w.alternatives.length; i++) {
          const [before, after] = [uScore.get(w.alternatives[i - 1]!.model)!, uScore.get(w.alternatives[i]!.model)!];
          if (Math.abs(before - after) > 1e-9) expect(before).toBeGreaterThan(after);
        }
        expect(w.sample_size).toBe(w.alternatives[0]?.sample_size ?? 0);
      }),
    );
  });

  it('keeps every success mean inside the range of its model’s neighbours', () => {
    fc.assert(
      fc.property(arbCluster, (cluster) => {
        for (const a of scoreCluster(cluster, { ...OPTS, scoring: 'similarity_weighted' }).alternatives) {
          const own = cluster.filter((n) => n.primary_model === a.model && n.success_score_count > 0).map((n) => n.success_score_mean);
          expect(a.success_score_mean).toBeGreaterThanOrEqual(Math.min(...own) - 1e-12);
          expect(a.success_score_mean).toBeLessThanOrEqual(Math.max(...own) + 1e-12);
        }
      }),
    );
  });
});

describe('pattern.min_similarity', () => {
  it('excludes far neighbours from the cluster before scoring', () => {
    const v = scoreCluster(TIE_WITH_SPILL, { ...OPTS, min_similarity: 0.5, min_sample_size: 3 });
    expect(v.k_cluster_size).toBe(2);
    expect(v.alternatives.map((a) => [a.model, a.success_score_mean, a.sample_size])).toEqual([
      [HAIKU, 0, 3],
      [SONNET, 0, 3],
    ]);
    expect(v.chosen_model).toBe(HAIKU);
  });

  it('a model seen only below the floor is not an alternative; a floor above every neighbour leaves nothing', () => {
    const cluster = [row(HAIKU, 0.9, 0.7, 5, '0.002'), row(OPUS, 0.3, 1, 50, '0.1')];
    expect(scoreCluster(cluster, { ...OPTS, min_similarity: 0.5 }).alternatives.map((a) => a.model)).toEqual([HAIKU]);
    expect(scoreCluster(cluster, OPTS).chosen_model).toBe(OPUS);
    expect(scoreCluster(cluster, { ...OPTS, min_similarity: 0.95 })).toEqual({ chosen_model: null, confidence: 0, alternatives: [], sample_size: 0, k_cluster_size: 0 });
  });

  it('keeps a neighbour exactly at the floor', () => {
    expect(scoreCluster([row(HAIKU, 0.5, 1, 5, '0.001')], { ...OPTS, min_similarity: 0.5 }).chosen_model).toBe(HAIKU);
  });
});

describe('the options through a real store (recommend)', () => {
  let fx: StoreFixture;
  afterEach(() => fx.cleanup());

  it('a workload whose own rows tie goes to sonnet under uniform and to haiku under similarity_weighted', () => {
    fx = makeStore();
    const own = features({ intent_tags: ['test'], workload_id: 'intentionally-failing-task' });
    for (let i = 0; i < 3; i++) {
      recordTurn(fx.store, own, { model: HAIKU, score: 0, cost: '0.002' });
      recordTurn(fx.store, own, { model: SONNET, score: 0, cost: '0.02' });
    }
    // Four other workloads, structurally alike, where sonnet wins.
    for (const w of ['a', 'b', 'c', 'd'])
      for (let i = 0; i < 3; i++) {
        recordTurn(fx.store, features({ intent_tags: ['test'], workload_id: w }), { model: SONNET, score: 1, cost: '0.02' });
        recordTurn(fx.store, features({ intent_tags: ['test'], workload_id: w }), { model: HAIKU, score: 0.2, cost: '0.002' });
      }
    expect(fx.store.recommend(own, { ...OPTS, k: 10 }).chosen_model).toBe(SONNET);
    expect(fx.store.recommend(own, { ...OPTS, k: 10, scoring: 'similarity_weighted' }).chosen_model).toBe(HAIKU);
    const floored = fx.store.recommend(own, { ...OPTS, k: 10, min_similarity: 0.5 });
    expect(floored.k_cluster_size).toBe(2);
    // 3 samples each: the min_sample_size gate (5) holds the choice back, so routing falls through.
    expect(floored.chosen_model).toBeNull();
  });
});

describe('routing.yaml pattern.scoring / min_similarity', () => {
  it('defaults to the values the schema documents and rejects bad ones', () => {
    const validate = routingFileValidator();
    const file: { pattern: Record<string, unknown> } = { pattern: {} };
    expect(validate(file)).toBe(true);
    expect(file.pattern).toMatchObject({ scoring: expect.stringMatching(/^(uniform|similarity_weighted)$/), min_similarity: expect.any(Number) });
    expect(validate({ pattern: { scoring: 'nearest' } })).toBe(false);
    expect(validate({ pattern: { min_similarity: 1.5 } })).toBe(false);
    expect(validate({ pattern: { min_similarity: -0.1 } })).toBe(false);
    expect(validate({ pattern: { scoring: 'similarity_weighted', min_similarity: 0.3 } })).toBe(true);
  });
});
