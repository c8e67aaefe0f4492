import { afterEach, describe, expect, it } from 'vitest';
import { createPatternPolicy, type RouteContext } from '../routing/index.ts';
import { routeContext } from '../routing/test-support/route-fixtures.ts';
import { createPatternRecommender, type RecommendOptions, type StructuralFeatures } from './index.ts';
import { features, HAIKU, SONNET } from './test-support/feature-fixtures.ts';
import { makeStore, recordTurn, type StoreFixture } from './test-support/store-fixtures.ts';

let fx: StoreFixture;
afterEach(() => fx.cleanup());

describe('createPatternRecommender (routing slot 4)', () => {
  it('asks featuresOf for the turn, maps a choice to {model, confidence, alternatives} and keeps the full answer', () => {
    fx = makeStore();
    const f = features({ intent_tags: ['debug'], workload_id: 'w' });
    for (let i = 0; i < 5; i++) {
      recordTurn(fx.store, f, { model: SONNET, score: 0.9, cost: '0.02' });
      recordTurn(fx.store, f, { model: HAIKU, score: 0.5, cost: '0.002' });
    }
    const seen: RouteContext[] = [];
    const rec = createPatternRecommender(fx.store, {
      featuresOf: (ctx) => {
        seen.push(ctx);
        return f;
      },
      options: () => ({ cost_weight: 0.05, min_confidence: 0.05, min_sample_size: 5 }),
    });
    expect(rec.lastRecommendation()).toBeNull();
    const ctx = routeContext({ user_message: 'fix it' });
    const got = rec.recommend(ctx)!;
    expect(seen).toEqual([ctx]);
    const full = rec.lastRecommendation()!;
    expect(got).toEqual({
      model: SONNET,
      confidence: full.confidence,
      alternatives: full.alternatives.map((a) => ({ model: a.model, score: a.score, sample_size: a.sample_size })),
    });
    expect(got.alternatives.map((a) => a.model)).toEqual([SONNET, HAIKU]);
    expect(full).toMatchObject({ chosen_model: SONNET, sample_size: 5, k_cluster_size: 2 });
  });

  it('answers null when a gate holds, while lastRecommendation still has the scores; reads the knobs on every call', () => {
    fx = makeStore();
    const f = features({ intent_tags: ['doc'] });
    for (let i = 0; i < 3; i++) recordTurn(fx.store, f, { model: HAIKU, score: 1 });
    let opts: RecommendOptions = { cost_weight: 0.05, min_confidence: 0.05, min_sample_size: 5 };
    const rec = createPatternRecommender(fx.store, { featuresOf: (): StructuralFeatures => f, options: () => opts });
    expect(rec.recommend(routeContext())).toBeNull();
    expect(rec.lastRecommendation()).toMatchObject({ chosen_model: null, sample_size: 3, alternatives: [{ model: HAIKU, sample_size: 3 }] });
    opts = { ...opts, min_sample_size: 3 };
    expect(rec.recommend(routeContext())?.model).toBe(HAIKU);
  });

  it('plugs into the pattern policy', () => {
    fx = makeStore();
    const f = features();
    for (let i = 0; i < 5; i++) recordTurn(fx.store, f, { model: HAIKU, score: 1 });
    const recommender = createPatternRecommender(fx.store, { featuresOf: () => f, options: () => ({ cost_weight: 0.05, min_confidence: 0.05, min_sample_size: 5 }) });
    const proposal = createPatternPolicy().evaluate(routeContext({ recommender }));
    expect(proposal).toMatchObject({ verdict: 'chose', candidate_model: HAIKU, confidence: 1, pattern_alternatives: [{ model: HAIKU, score: 0.95, sample_size: 5 }] });
  });
});
