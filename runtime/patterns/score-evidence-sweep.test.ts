// scoreEvidence keeps the cost_weight-free half of each evidence's scoring for the next call: a sweep that
// scores one evidence at many weights, scorings and floors, in any order, must get what scoring a fresh copy
// of the evidence each time gets (the Thompson draws included, in the same order).
import { Decimal } from 'decimal.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { scoreEvidence } from './cluster-scoring.ts';
import { noEvidence, type ModelEvidence } from './expected-gain.ts';
import type { NeighborMatch, RecommendEvidence, RecommendOptions } from './pattern-store.ts';
import { seededRandom } from '../core/seeded-random.ts';
import { HAIKU, OPUS, SONNET } from './test-support/feature-fixtures.ts';

const MODELS = [HAIKU, SONNET, OPUS];

const arbRow: fc.Arbitrary<NeighborMatch> = fc
  .record({ model: fc.constantFrom(...MODELS), similarity: fc.double({ min: 0, max: 1, noNaN: true }), success: fc.double({ min: 0, max: 1, noNaN: true }), n: fc.integer({ min: 1, max: 40 }), scored: fc.integer({ min: 0, max: 40 }), cost: fc.integer({ min: 0, max: 90_000 }), id: fc.nat(5) })
  .map((r) => ({
    fingerprint_id: `fp${r.id}`,
    primary_model: r.model,
    similarity: r.similarity,
    sample_size: r.n,
    success_score_mean: r.success,
    success_score_count: Math.min(r.n, r.scored),
    avg_cost_usd: new Decimal(r.cost).div(1e6),
    avg_latency_ms: 10,
  }));

const arbPriors: fc.Arbitrary<ModelEvidence[]> = fc.array(
  fc.record({ model: fc.constantFrom(...MODELS), n: fc.integer({ min: 1, max: 200 }), success: fc.double({ min: 0, max: 1, noNaN: true }), cost: fc.integer({ min: 0, max: 90_000 }) }).map((p) => ({
    ...noEvidence(p.model),
    samples: p.n,
    scoredWeight: p.n,
    successSum: p.success * p.n,
    costWeight: p.n,
    costSum: new Decimal(p.cost).times(p.n).div(1e6),
  })),
  { maxLength: 3 },
);

const arbCall = fc.record({
  cost_weight: fc.constantFrom(0, 0.02, 0.1, 0.3, 0.5, 1),
  min_confidence: fc.constantFrom(0, 0.05),
  min_sample_size: fc.constantFrom(0, 5),
  scoring: fc.constantFrom('uniform' as const, 'similarity_weighted' as const, 'expected_gain' as const),
  min_similarity: fc.constantFrom(0, 0.5),
  thompson: fc.boolean(),
});

describe('scoreEvidence over a sweep', () => {
  it('scores a reused evidence as it scores a fresh copy, call after call', () => {
    fc.assert(
      fc.property(fc.array(arbRow, { maxLength: 12 }), arbPriors, fc.array(arbCall, { minLength: 1, maxLength: 12 }), fc.nat(1000), (nearest, global, calls, seed) => {
        const evidence = (): RecommendEvidence => ({ nearest: nearest.map((n) => ({ ...n })), priors: { global, workspace: null }, fingerprint_id: null, elapsed_ms: 0, failed: false });
        const reused = evidence();
        const drawsA = seededRandom(seed);
        const drawsB = seededRandom(seed);
        for (const c of calls) {
          const opts = (random: () => number): RecommendOptions => ({ ...c, k: 10, exploration: c.thompson ? 'thompson' : 'none', random, candidates: MODELS });
          expect(scoreEvidence(reused, opts(drawsA))).toEqual(scoreEvidence(evidence(), opts(drawsB)));
        }
      }),
      { seed: 28, numRuns: 300 },
    );
  });
});
