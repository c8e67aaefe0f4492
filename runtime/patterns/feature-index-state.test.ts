// The feature index's cheap paths answer what its full ones do: the presence check matches a copied read of
// the vector; an outcome state's mean cost read late is the mean of its row; the per-model totals read after
// many writes (their changes applied when read) equal the totals read after every write; the blended K-NN of
// frozen features (structural scores kept per shape) equals that of unfrozen copies.
import { Decimal } from 'decimal.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createFeatureIndex, outcomeState, type OutcomeCounts } from './feature-index.ts';
import { meanUsdFromMicros } from './money.ts';
import { freezeFeatures, normalizeFeatures } from './structural-features.ts';
import { features } from './test-support/feature-fixtures.ts';

const MODELS = ['m0', 'm1', 'm2'];
const fp = (i: number) => normalizeFeatures(features({ workload_id: `w${i % 3}`, intent_tags: [`t${i % 4}`] }));
const counts = (id: string, model: string, n: number, t: number, score: number, micros: bigint): OutcomeCounts => ({
  fingerprint_id: id, primary_model: model, sample_size: n, last_updated_at_us: t, success_score_mean: score, success_score_count: n, sum_cost_usd_micros: micros,
});

type Op = { kind: 'put'; f: number; model: number; n: number; micros: number; score: number } | { kind: 'removeOutcome'; f: number; model: number } | { kind: 'removeFingerprint'; f: number };
const arbOp: fc.Arbitrary<Op> = fc.oneof(
  { weight: 8, arbitrary: fc.record({ kind: fc.constant('put' as const), f: fc.nat(5), model: fc.nat(2), n: fc.integer({ min: 1, max: 9 }), micros: fc.nat(3_000_000), score: fc.double({ min: 0, max: 1, noNaN: true }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('removeOutcome' as const), f: fc.nat(5), model: fc.nat(2) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('removeFingerprint' as const), f: fc.nat(5) }) },
);

/** Plays `ops` on a fresh index; `every` reads the totals after each op (applying each change as it is made). */
function play(ops: readonly Op[], every: boolean): string {
  const index = createFeatureIndex({ embeddingDim: 4 });
  let t = 0;
  for (const op of ops) {
    const id = `fp${op.f}`;
    if (op.kind === 'put') {
      index.putFingerprint(id, `sig${op.f}`, fp(op.f));
      index.putOutcome(outcomeState(counts(id, MODELS[op.model]!, op.n, ++t, op.score, BigInt(op.micros)), 0));
    } else if (op.kind === 'removeOutcome') index.removeOutcome(id, MODELS[op.model]!);
    else index.removeFingerprint(id);
    if (every) for (const w of [null, 'w0', 'w1']) index.modelTotals(w);
  }
  // Decimal sums as text: equal to the last digit.
  return JSON.stringify([null, 'w0', 'w1', 'w2'].map((w) => index.modelTotals(w)), (_, v: unknown) => (v instanceof Decimal ? v.toFixed() : v));
}

describe('feature index: deferred and kept work', () => {
  it('property: the totals read once at the end equal the totals read after every write', () => {
    fc.assert(
      fc.property(fc.array(arbOp, { maxLength: 60 }), (ops) => {
        expect(play(ops, false)).toBe(play(ops, true));
      }),
      { numRuns: 200 },
    );
  });

  it("an outcome state's mean cost, read late, is its row's mean; the index keeps the state without a copy", () => {
    const state = outcomeState(counts('fp0', 'm0', 3, 1, 0.5, 1_000_001n), 7);
    expect(state.avg_cost_usd.equals(meanUsdFromMicros(1_000_001n, 3))).toBe(true);
    expect(state.avg_cost_usd).toBe(state.avg_cost_usd);
    expect(state.avg_latency_ms).toBe(7);
    const index = createFeatureIndex();
    index.putFingerprint('fp0', 'sig0', fp(0));
    index.putOutcome(state);
    expect(index.kNearest(fp(0), 1, true)[0]!.avg_cost_usd).toBe(state.avg_cost_usd);
  });

  it('hasEmbedding answers embeddingOf(id) !== null through writes, swap-removes and clears', () => {
    const index = createFeatureIndex({ embeddingDim: 4 });
    const both = (id: string) => [index.hasEmbedding(id), index.embeddingOf(id) !== null];
    for (let i = 0; i < 5; i++) index.putFingerprint(`fp${i}`, `sig${i}`, fp(i));
    index.setEmbedding('fp1', Float32Array.of(1, 0, 0, 0));
    index.setEmbedding('fp4', Float32Array.of(0, 1, 0, 0));
    // fp4 moves into fp0's slot; fp1 keeps its vector; an unknown id has none.
    index.removeFingerprint('fp0');
    for (const id of ['fp0', 'fp1', 'fp2', 'fp3', 'fp4', 'nope']) expect(both(id)).toEqual(Array(2).fill(['fp1', 'fp4'].includes(id)));
    index.clear();
    expect(both('fp1')).toEqual([false, false]);
    expect(createFeatureIndex().hasEmbedding('x')).toBe(false);
  });

  it('property: blended K-NN of frozen features (structural scores kept per shape) equals that of unfrozen copies, across writes', () => {
    const shapes = [0, 1, 2, 3, 4, 5].map((i) => freezeFeatures(fp(i)));
    const vec = fc.array(fc.integer({ min: -3, max: 3 }), { minLength: 4, maxLength: 4 });
    const arbStep = fc.oneof(
      fc.record({ kind: fc.constant('put' as const), f: fc.nat(5), model: fc.nat(2), v: vec }),
      fc.record({ kind: fc.constant('query' as const), shape: fc.nat(5), k: fc.integer({ min: 1, max: 12 }), v: vec }),
    );
    fc.assert(
      fc.property(fc.array(arbStep, { maxLength: 40 }), (steps) => {
        const kept = createFeatureIndex({ embeddingDim: 4 });
        const fresh = createFeatureIndex({ embeddingDim: 4 });
        let t = 0;
        for (const step of steps) {
          if (step.kind === 'put') {
            t++;
            for (const index of [kept, fresh]) {
              index.putFingerprint(`fp${t}`, `sig${t}`, fp(step.f));
              index.putOutcome(outcomeState(counts(`fp${t}`, MODELS[step.model]!, 1, t, 0.5, 10n), 0));
              index.setEmbedding(`fp${t}`, Float32Array.from(step.v));
            }
          } else {
            const q = Float32Array.from(step.v);
            const shape = shapes[step.shape]!;
            expect(kept.kNearestBlended(shape, step.k, true, q, 0.6)).toEqual(fresh.kNearestBlended(structuredClone(shape), step.k, true, q, 0.6));
          }
        }
      }),
      { numRuns: 200 },
    );
  });
});
