import { Decimal } from 'decimal.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../core/seeded-random.ts';
import { scoreExpectedGain, type ModelPriors } from './cluster-scoring.ts';
import {
  costScale,
  gainScore,
  hierarchicalEstimates,
  NEIGHBOR_PRIOR_STRENGTH,
  noEvidence,
  sampleBeta,
  shrink,
  thompsonDraw,
  WORKSPACE_PRIOR_STRENGTH,
  type ModelEvidence,
} from './expected-gain.ts';
import { createFeatureIndex } from './feature-index.ts';
import { createVirtualClock } from '../core/clock.ts';
import { createMemoryLogger } from '../core/logger.ts';
import { createDeterministicProvider } from './embeddings/index.ts';
import { openPatternStore } from './sqlite-pattern-store.ts';
import { CTX, T0_US, tempDir } from './test-support/store-fixtures.ts';
import { join } from 'node:path';
import type { NeighborMatch, RecommendOptions } from './pattern-store.ts';
import { features } from './test-support/feature-fixtures.ts';

/** Unweighted evidence: n samples, s of them solved, each costing `cost`. */
function ev(model: string, n: number, s: number, cost: string): ModelEvidence {
  return { model, samples: n, scoredWeight: n, successSum: s, costWeight: n, costSum: new Decimal(cost).times(n) };
}

const unit = fc.double({ min: 0, max: 1, noNaN: true });

describe('shrink', () => {
  it('is the prior with no evidence, lies between the data mean and the prior, and tends to the mean as the prior weakens', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 500 }), unit, unit, fc.oneof(fc.constant(0), fc.double({ min: 1e-3, max: 100, noNaN: true })), (n, rate, prior, k) => {
        const sum = Math.round(rate * n);
        expect(shrink(0, 0, prior, k)).toBeCloseTo(prior, 12);
        const x = shrink(sum, n, prior, k);
        if (n > 0) {
          const mean = sum / n;
          expect(x).toBeGreaterThanOrEqual(Math.min(mean, prior) - 1e-12);
          expect(x).toBeLessThanOrEqual(Math.max(mean, prior) + 1e-12);
          expect(shrink(sum, n, prior, 0)).toBeCloseTo(mean, 12);
        }
      }),
    );
  });

  it('is a Beta posterior mean: 3 solved of 4 with prior 0.5 at strength 2 gives (3 + 1) / 6', () => {
    expect(shrink(3, 4, 0.5, 2)).toBeCloseTo(4 / 6, 12);
  });

  it('rejects a negative weight', () => {
    expect(() => shrink(1, -1, 0.5, 1)).toThrow(RangeError);
  });
});

describe('hierarchicalEstimates', () => {
  it('prices the turn at its workspace\'s mean cost, not its neighbours\', and at the store\'s without a workspace', () => {
    const global = [ev('m', 100, 50, '0.01')];
    expect(hierarchicalEstimates(global, [ev('m', 30, 10, '0.002')], [ev('m', 5, 0, '0.5')])[0]!.cost.toNumber()).toBeCloseTo((30 * 0.002 + 0.01) / 31, 12);
    expect(hierarchicalEstimates(global, null, [ev('m', 5, 0, '0.5')])[0]!.cost.toNumber()).toBeCloseTo(0.01, 12);
  });

  it('with no neighbour or workspace evidence, a model\'s estimate is its store-wide rate and mean cost', () => {
    const [e] = hierarchicalEstimates([ev('m', 40, 10, '0.002')], null, []);
    expect(e!.p).toBeCloseTo(0.25, 12);
    expect(e!.cost.toNumber()).toBeCloseTo(0.002, 12);
  });

  it('shrinks the neighbours to the workspace and the workspace to the store, with the documented strengths', () => {
    const [e] = hierarchicalEstimates([ev('m', 100, 50, '0.01')], [ev('m', 20, 20, '0.01')], [ev('m', 5, 0, '0.01')]);
    const ws = (20 + WORKSPACE_PRIOR_STRENGTH * 0.5) / (20 + WORKSPACE_PRIOR_STRENGTH);
    expect(e!.p).toBeCloseTo((0 + NEIGHBOR_PRIOR_STRENGTH * ws) / (5 + NEIGHBOR_PRIOR_STRENGTH), 12);
    expect(e!.samples).toBe(25);
  });

  it('stays in [0, 1] and never falls when a neighbour success is added', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 200 }), unit, fc.integer({ min: 0, max: 50 }), unit, fc.integer({ min: 0, max: 30 }), unit, (gn, gr, wn, wr, nn, nr) => {
        const global = [ev('m', gn, Math.round(gr * gn), '0.001')];
        const ws = [ev('m', wn, Math.round(wr * wn), '0.001')];
        const ns = Math.round(nr * nn);
        const [a] = hierarchicalEstimates(global, ws, [ev('m', nn, ns, '0.001')]);
        const [b] = hierarchicalEstimates(global, ws, [ev('m', nn + 1, ns + 1, '0.001')]);
        expect(a!.p).toBeGreaterThanOrEqual(0);
        expect(a!.p).toBeLessThanOrEqual(1);
        expect(b!.p).toBeGreaterThanOrEqual(a!.p - 1e-12);
      }),
    );
  });
});

describe('gainScore: the cost-aware choice', () => {
  it('prefers the dearer model exactly when its expected gain per extra dollar clears cw / ((1 − cw)·scale)', () => {
    fc.assert(
      fc.property(unit, unit, fc.double({ min: 0.0001, max: 0.1, noNaN: true }), fc.double({ min: 0.0001, max: 0.1, noNaN: true }), fc.double({ min: 0.01, max: 0.95, noNaN: true }), fc.double({ min: 0.001, max: 0.1, noNaN: true }), (pc, pd, cc, extra, cw, scale) => {
        const cd = cc + extra;
        const dear = gainScore(pd, cd, cw, scale) > gainScore(pc, cc, cw, scale);
        const perDollar = (pd - pc) / extra;
        const threshold = cw / ((1 - cw) * scale);
        // Away from the boundary (float rounding), the two statements agree.
        if (Math.abs(perDollar - threshold) > 1e-6 * Math.max(1, threshold)) expect(dear).toBe(perDollar > threshold);
      }),
    );
  });

  it('ignores cost at cost_weight 0 or when every model costs alike', () => {
    expect(gainScore(0.7, 5, 0, 1)).toBeCloseTo(0.7, 12);
    expect(gainScore(0.7, 5, 0.4, 0)).toBeCloseTo(0.42, 12);
    expect(costScale([ev('a', 3, 1, '0.01'), ev('b', 3, 1, '0.01')])).toBe(0);
    expect(costScale([ev('a', 3, 1, '0.01'), ev('b', 3, 1, '0.03')])).toBeCloseTo(0.02, 12);
  });
});

describe('Thompson draws', () => {
  it('stay in [0, 1] and replay from the same seed', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 31 }), fc.double({ min: 0.05, max: 50, noNaN: true }), fc.double({ min: 0.05, max: 50, noNaN: true }), (seed, a, b) => {
        const x = sampleBeta(a, b, seededRandom(seed));
        expect(x).toBeGreaterThanOrEqual(0);
        expect(x).toBeLessThanOrEqual(1);
        expect(sampleBeta(a, b, seededRandom(seed))).toBe(x);
      }),
      { numRuns: 200 },
    );
  });

  it('centre on the estimate and narrow as its evidence grows', () => {
    const r = seededRandom(3);
    const draws = (strength: number) => Array.from({ length: 2000 }, () => thompsonDraw({ p: 0.8, strength }, r));
    const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
    const sd = (xs: number[]) => Math.sqrt(mean(xs.map((x) => (x - mean(xs)) ** 2)));
    const wide = draws(4);
    const narrow = draws(400);
    // Beta(1 + 0.8·s, 1 + 0.2·s): mean (1 + 0.8s) / (2 + s).
    expect(mean(narrow)).toBeCloseTo(321 / 402, 2);
    expect(mean(wide)).toBeCloseTo(4.2 / 6, 1);
    expect(sd(narrow)).toBeLessThan(sd(wide) / 3);
  });
});

function row(model: string, similarity: number, success: number, n: number, cost: string): NeighborMatch {
  return { fingerprint_id: `fp_${model}_${similarity}`, primary_model: model, similarity, sample_size: n, success_score_mean: success, success_score_count: n, avg_cost_usd: new Decimal(cost), avg_latency_ms: 0 };
}

describe('scoreExpectedGain', () => {
  const base: RecommendOptions = { cost_weight: 0.1, min_confidence: 0.05, min_sample_size: 5, scoring: 'expected_gain', min_similarity: 0.5 };
  const priors: ModelPriors = { global: [ev('cheap', 100, 60, '0.001'), ev('strong', 100, 80, '0.011')], workspace: null };

  it('upgrades a turn whose neighbours gain more per dollar than the cost_weight asks, and not one that gains less', () => {
    // Scale 0.01: strong is worth it iff Δp / 0.01 > (0.1 / 0.9) / 0.01, i.e. Δp > 0.111.
    const big = scoreExpectedGain([row('cheap', 0.95, 0.2, 40, '0.001'), row('strong', 0.95, 0.9, 40, '0.011')], base, priors);
    const small = scoreExpectedGain([row('cheap', 0.95, 0.8, 40, '0.001'), row('strong', 0.95, 0.85, 40, '0.011')], base, priors);
    expect(big.chosen_model).toBe('strong');
    expect(small.chosen_model).toBe('cheap');
  });

  it('prices a turn at its workspace\'s cost: the same gain wins where the dear model costs little and loses where it costs much', () => {
    const gain = (cost: string) =>
      scoreExpectedGain([row('cheap', 0.95, 0.6, 40, '0.001'), row('strong', 0.95, 0.75, 40, '0.011')], { ...base, cost_weight: 0.2 }, { global: priors.global, workspace: [ev('cheap', 40, 24, '0.001'), ev('strong', 40, 30, cost)] });
    expect(gain('0.003').chosen_model).toBe('strong');
    expect(gain('0.03').chosen_model).toBe('cheap');
  });

  it('holds back below min_sample_size, and never names a model the store has not seen unless exploring', () => {
    const thin = scoreExpectedGain([row('cheap', 0.95, 0.1, 2, '0.001'), row('strong', 0.95, 1, 2, '0.011')], { ...base, min_sample_size: 100 }, { global: priors.global, workspace: [] });
    expect(thin.chosen_model).toBeNull();
    const onlyCheap: ModelPriors = { global: [ev('cheap', 50, 0, '0.001')], workspace: null };
    const plain = scoreExpectedGain([row('cheap', 0.95, 0, 50, '0.001')], { ...base, candidates: ['cheap', 'strong'] }, onlyCheap);
    expect(plain.alternatives.map((a) => a.model)).toEqual(['cheap']);
    // Exploring, the unseen model is drawn from Beta(1, 1) at cost 0: it beats a model that never solves.
    const r = seededRandom(1);
    const tried = Array.from({ length: 20 }, () => scoreExpectedGain([row('cheap', 0.95, 0, 50, '0.001')], { ...base, candidates: ['cheap', 'strong'], exploration: 'thompson', random: r }, onlyCheap).chosen_model);
    expect(tried.filter((m) => m === 'strong').length).toBeGreaterThan(15);
  });

  it('with an empty store and no exploration, recommends nothing', () => {
    expect(scoreExpectedGain([], base, { global: [], workspace: null }).chosen_model).toBeNull();
  });
});

describe('the feature index keeps per-model totals in step with its rows', () => {
  it('store-wide and per-workspace totals equal the sums over the rows after any sequence of puts, replaces and removes', () => {
    const op = fc.record({
      kind: fc.constantFrom('put', 'put', 'removeOutcome', 'removeFingerprint'),
      fp: fc.integer({ min: 0, max: 5 }),
      model: fc.constantFrom('a', 'b'),
      n: fc.integer({ min: 1, max: 9 }),
      mean: unit,
      cost: fc.integer({ min: 1, max: 999 }),
    });
    fc.assert(
      fc.property(fc.array(op, { maxLength: 40 }), (ops) => {
        const index = createFeatureIndex();
        const rows = new Map<string, { wl: string; model: string; n: number; mean: number; cost: Decimal }>();
        const wlOf = (fp: number) => (fp % 3 === 0 ? 'w0' : fp % 3 === 1 ? 'w1' : null);
        for (const o of ops) {
          const id = `fp${o.fp}`;
          if (o.kind === 'put') {
            index.putFingerprint(id, id, features({ workload_id: wlOf(o.fp) }));
            const cost = new Decimal(o.cost).div(1e6);
            index.putOutcome({ fingerprint_id: id, primary_model: o.model, sample_size: o.n, success_score_mean: o.mean, success_score_count: o.n, avg_cost_usd: cost, avg_latency_ms: 0, last_updated_at_us: 0 });
            rows.set(`${id}/${o.model}`, { wl: wlOf(o.fp) ?? '', model: o.model, n: o.n, mean: o.mean, cost });
          } else if (o.kind === 'removeOutcome') {
            index.removeOutcome(id, o.model);
            rows.delete(`${id}/${o.model}`);
          } else {
            index.removeFingerprint(id);
            for (const k of [...rows.keys()]) if (k.startsWith(`${id}/`)) rows.delete(k);
          }
        }
        const expected = (wl: string | null) => {
          const by = new Map<string, ModelEvidence>();
          for (const r of rows.values())
            if (wl === null || r.wl === wl) {
              const e = by.get(r.model) ?? noEvidence(r.model);
              e.samples += r.n;
              e.successSum += r.mean * r.n;
              e.costSum = e.costSum.plus(r.cost.times(r.n));
              by.set(r.model, e);
            }
          return by;
        };
        const check = (got: readonly ModelEvidence[], want: Map<string, ModelEvidence>) => {
          expect(new Set(got.map((g) => g.model))).toEqual(new Set(want.keys()));
          for (const g of got) {
            const w = want.get(g.model)!;
            expect(g.samples).toBe(w.samples);
            expect(g.successSum).toBeCloseTo(w.successSum, 9);
            expect(g.costSum.equals(w.costSum)).toBe(true);
          }
        };
        const t = index.modelTotals('w0');
        check(t.global, expected(null));
        check(t.workspace!, expected('w0'));
        expect(index.modelTotals(null).workspace).toBeNull();
      }),
    );
  });
});

describe('the stores score expected_gain with their workspace and store-wide priors (v1 and v2 paths)', () => {
  // Workspace w1: cheap solves 2 of 10, strong 9 of 10, strong costs $0.002. Workspace w2 (other turns):
  // cheap and strong both solve 9 of 10, strong costs $0.02. A turn of w1 whose own fingerprint has no rows
  // meets w1's rows only through the workspace prior (its neighbours are other shapes below the floor).
  const seed = (store: { record: (i: Parameters<ReturnType<typeof openPatternStore>['record']>[0], c: typeof CTX) => unknown }) => {
    let n = 0;
    for (const [wl, cheapSolved, strongSolved, strongCost] of [['w1', 2, 9, '0.002'], ['w2', 9, 9, '0.02']] as const)
      for (let i = 0; i < 10; i++)
        for (const [model, solved, cost] of [['cheap', i < cheapSolved, '0.001'], ['strong', i < strongSolved, strongCost]] as const)
          store.record({ turn_id: `t${n++}`, features: features({ workload_id: wl, intent_tags: ['debug'] }), primary_model: model, success_score: solved ? 1 : 0, cost_usd: new Decimal(cost), latency_ms: 0, pricing_version: 'p' }, CTX);
  };
  const opts: RecommendOptions = { cost_weight: 0.1, min_confidence: 0, min_sample_size: 5, scoring: 'expected_gain', min_similarity: 0.95 };
  const query = features({ workload_id: 'w1', intent_tags: ['refactor'], file_extensions: ['.py'] });

  it('v1: the workspace prior alone upgrades a w1 turn; the same turn with no workspace stays cheap (store-wide gain 0.35 at the store-wide cost)', () => {
    const s = openPatternStore(join(tempDir(), 'p.db'), { logger: createMemoryLogger(), clock: createVirtualClock(T0_US) });
    seed(s);
    const r = s.recommend(query, opts);
    expect(r.k_cluster_size).toBe(0);
    expect(r.chosen_model).toBe('strong');
    expect(s.recommend({ ...query, workload_id: null }, { ...opts, min_sample_size: 0, cost_weight: 0.3 }).chosen_model).toBe('cheap');
    s.close();
  });

  it('v2 with an embedding: the same answer through the blended K-NN', async () => {
    const provider = createDeterministicProvider(16);
    const s = openPatternStore(join(tempDir(), 'p2.db'), { logger: createMemoryLogger(), clock: createVirtualClock(T0_US), fingerprintVersion: 'v2', embeddingProvider: provider });
    seed(s);
    const e = await s.embedForRecording('a w1 turn');
    expect(s.recommend(query, opts, { embedding: e }).chosen_model).toBe('strong');
    s.close();
  });
});
