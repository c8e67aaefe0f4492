// A seeded two-or-more-model stream played through slot 4's expected_gain scoring as the online setting
// plays it: each turn routed on the store-wide evidence alone, then only the chosen model's outcome learnt.
import { Decimal } from 'decimal.js';
import { seededRandom } from '../../core/seeded-random.ts';
import { scoreExpectedGain } from '../cluster-scoring.ts';
import { createRegretBudget, gainScore, noEvidence, type ModelEvidence } from '../expected-gain.ts';

/** One model of the stream: its true P(solve) and its cost per turn. */
export interface StreamModel {
  model: string;
  p: number;
  cost: string;
}

/** What a stream did. */
export interface StreamResult {
  /** The model chosen on each turn. */
  chosen: string[];
  /** Expected regret charged to the budget, in total. */
  charged: number;
  /** Σ over turns of 100 × (best true utility − the chosen model's true utility), the scale being the true cost spread. */
  trueRegret: number;
}

/** Plays `turns` turns at `costWeight` with a regret budget of `budget` points, draws and outcomes from `seed`. */
export function playStream(models: readonly StreamModel[], turns: number, costWeight: number, budget: number, seed: number): StreamResult {
  const draws = seededRandom(seed);
  const outcomes = seededRandom(seed + 7919);
  const global = new Map<string, ModelEvidence>();
  const inner = createRegretBudget(budget);
  let charged = 0;
  const regretBudget = {
    turn: () => inner.turn(),
    remaining: () => inner.remaining(),
    spend: (p: number) => {
      charged += p;
      inner.spend(p);
    },
  };
  const costs = models.map((m) => Number(m.cost));
  const scale = Math.max(...costs) - Math.min(...costs);
  const utility = models.map((m) => gainScore(m.p, Number(m.cost), costWeight, scale));
  const bestUtility = Math.max(...utility);
  const chosen: string[] = [];
  let trueRegret = 0;
  for (let t = 0; t < turns; t++) {
    const verdict = scoreExpectedGain(
      [],
      { cost_weight: costWeight, min_confidence: 0, min_sample_size: 0, scoring: 'expected_gain', exploration: 'thompson', random: draws, candidates: models.map((m) => m.model), regret_budget: regretBudget },
      { global: [...global.values()], workspace: null },
    );
    const pick = verdict.chosen_model!;
    const i = models.findIndex((m) => m.model === pick);
    chosen.push(pick);
    trueRegret += 100 * (bestUtility - utility[i]!);
    const solved = outcomes() < models[i]!.p ? 1 : 0;
    const e = global.get(pick) ?? noEvidence(pick);
    global.set(pick, { ...e, samples: e.samples + 1, scoredWeight: e.scoredWeight + 1, successSum: e.successSum + solved, costWeight: e.costWeight + 1, costSum: e.costSum.plus(new Decimal(models[i]!.cost)) });
  }
  return { chosen, charged, trueRegret };
}
