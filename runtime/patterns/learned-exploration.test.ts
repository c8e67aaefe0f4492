import { Decimal } from 'decimal.js';
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../core/seeded-random.ts';
import { createRegretBudget, poolPrior } from './expected-gain.ts';
import { scoreLearned } from './learned-scoring.ts';
import type { RecommendOptions } from './pattern-store.ts';

// Cold start of `learned` online: the store has only seen the cheapest model (slot 7's pick on an empty store).
const seenCheap = { predictions: [{ model: 'cheap', p: 0.6, cost_usd: 0.001, tasks: 30 }], scale: 0 };
const knobs = (over: Partial<RecommendOptions>): RecommendOptions => ({ cost_weight: 0.1, min_confidence: 0, min_sample_size: 3, k: 10, scoring: 'learned', candidates: ['cheap', 'strong'], ...over });

describe('scoreLearned under exploration: thompson', () => {
  it('estimates a candidate the store has never seen at the pool prior, so it is tried (not locked onto the cheapest)', () => {
    const pool = poolPrior([{ model: 'cheap', samples: 30, scoredWeight: 30, successSum: 18, costWeight: 30, costSum: new Decimal(0.03) }]);
    const random = seededRandom(7);
    const budget = createRegretBudget(50);
    const picks = Array.from({ length: 200 }, () => scoreLearned({ ...seenCheap, pool }, knobs({ exploration: 'thompson', random, regret_budget: budget })).chosen_model);
    const strong = picks.filter((m) => m === 'strong').length;
    // The unseen model sits at the pool's rate (0.6) with the fallback spread: drawn above the cheap one's tight posterior about half the time.
    expect(strong).toBeGreaterThan(40);
    expect(strong).toBeLessThan(160);
    const rec = scoreLearned({ ...seenCheap, pool }, knobs({ exploration: 'thompson', random: seededRandom(1) }));
    const unseen = rec.alternatives.find((a) => a.model === 'strong')!;
    expect(unseen.sample_size).toBe(0);
    expect(unseen.success_score_mean).toBeCloseTo(pool.p, 12);
    expect(unseen.avg_cost_usd).toBe(pool.cost.toDecimalPlaces(12).toFixed());
  });

  it('tries every candidate from an empty store (pool prior of no evidence) and applies no sample gate', () => {
    const random = seededRandom(3);
    const picks = new Set(Array.from({ length: 60 }, () => scoreLearned({ predictions: [], scale: 0, pool: poolPrior([]) }, knobs({ exploration: 'thompson', random, candidates: ['a', 'b', 'c'] })).chosen_model));
    expect(picks).toEqual(new Set(['a', 'b', 'c']));
  });

  it('without exploration stays greedy over the trained models: unseen candidates do not join, and the gate holds', () => {
    const pool = poolPrior([]);
    const rec = scoreLearned({ ...seenCheap, pool }, knobs({}));
    expect(rec.alternatives.map((a) => a.model)).toEqual(['cheap']);
    expect(scoreLearned({ ...seenCheap, pool }, knobs({ min_sample_size: 100 })).chosen_model).toBeNull();
  });
});
