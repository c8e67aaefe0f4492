import { Decimal } from 'decimal.js';
import { rankEstimates } from './cluster-scoring.ts';
import { gainScore, poolPrior, type ModelEstimate, type ModelEvidence, type PoolPrior } from './expected-gain.ts';
import { PROMPT_TERMS_DIM } from './prompt-outcomes.ts';
import type { PromptModelFile } from '../../schemas/types/prompt-model.ts';
import { defaultPromptModelSettings } from './prompt-model-settings.ts';
import { hashedTerms, predictPrompt, trainPromptModel, type PromptModel, type PromptModelOptions, type PromptPrediction } from './prompt-model.ts';
import type { ModelOption, PatternRecommendation, PatternStore, RecommendOptions } from './pattern-store.ts';

/**
 * Slot 4's `scoring: learned` over one store: the prompt model (prompt-model.ts) trained on the store's
 * prompt rows, retrained when the rows have grown by a quarter since the last fit (an online store learns
 * one row per turn; refitting on every turn would cost O(n²) over a run), and a recommendation per turn:
 * every model of the pool scored (1 − cw)·P(solve | prompt) − cw·cost(prompt) / scale, the scale being the
 * spread of the models' mean costs in the store, as `expected_gain` scales it.
 */
export interface LearnedScorer {
  /** Each trained model's P(solve) and cost for this prompt; [] when the store has no prompt rows. */
  predict(text: string, workloadId: string | null): LearnedPrediction;
  /** The recommendation for `predict`'s answer under the knobs `opts` (cost_weight, min_sample_size, exploration). */
  score(p: LearnedPrediction, opts: RecommendOptions): PatternRecommendation;
}

/** `predict`'s answer: the trained models' predictions, the cost scale and the pool prior an unseen model is estimated at. */
export interface LearnedPrediction {
  predictions: readonly PromptPrediction[];
  scale: number;
  /** poolPrior over the trained models' store-wide rates and mean costs (absent: no exploration prior, as before it existed). */
  pool?: PoolPrior;
}

/** Creates the scorer over `store` (which must offer promptOutcomes; without it every answer abstains). */
export function createLearnedScorer(store: PatternStore, settings: PromptModelFile = defaultPromptModelSettings()): LearnedScorer {
  const options: PromptModelOptions = { dim: PROMPT_TERMS_DIM, lambda: settings.lambda, cluster_prior: settings.cluster_prior, k_clusters: settings.k_clusters, seed: settings.seed, price_exponent: settings.price_exponent };
  let fitted: { model: PromptModel; rows: number; scale: number; pool: PoolPrior } | null = null;
  const current = (): typeof fitted => {
    const rows = store.promptOutcomes?.() ?? [];
    if (rows.length === 0) return null;
    if (!fitted || rows.length > fitted.rows * (1 + settings.refit_growth)) {
      const model = trainPromptModel(rows, options);
      const means = [...model.meanCost.values()];
      fitted = { model, rows: rows.length, scale: means.length < 2 ? 0 : Math.max(...means) - Math.min(...means), pool: poolPrior(storeEvidence(model)) };
    }
    return fitted;
  };
  return {
    predict(text, workloadId) {
      const f = current();
      // An empty store still has a pool prior (poolPrior of no evidence), so exploration can try every candidate.
      if (!f) return { predictions: [], scale: 0, pool: poolPrior([]) };
      return { predictions: predictPrompt(f.model, hashedTerms(text, options.dim), text.length, workloadId), scale: f.scale, pool: f.pool };
    },
    score: scoreLearned,
  };
}

/** Each trained model's store-wide evidence (its rows' mean score and cost), what poolPrior reads. */
function storeEvidence(m: PromptModel): ModelEvidence[] {
  return m.models.map((f) => ({ model: f.model, samples: f.tasks, scoredWeight: f.tasks, successSum: f.globalMean * f.tasks, costWeight: f.tasks, costSum: new Decimal(m.meanCost.get(f.model) ?? 0).times(f.tasks) }));
}

/**
 * Scores predictions into a recommendation (pure): best utility first; gated by min_sample_size on the top
 * model's training tasks. Under `exploration: thompson` (with `random`) each P(solve) is a Beta draw whose
 * strength is the model's training tasks, and every candidate the store has never seen joins at the pool
 * prior (its rate, spread and mean cost), ranked by the same code as `expected_gain` (rankEstimates: regret
 * budget, no gate), so an online store that has only seen the cheapest model still tries the others.
 */
export function scoreLearned(p: LearnedPrediction, opts: RecommendOptions): PatternRecommendation {
  const base = { k_cluster_size: 0, fingerprint_id: null, elapsed_ms: 0 };
  if (opts.exploration === 'thompson' && opts.random && p.pool) {
    const pool = p.pool;
    const estimates: ModelEstimate[] = p.predictions.map((x) => ({ model: x.model, p: x.p, cost: new Decimal(x.cost_usd), strength: x.tasks, samples: x.tasks }));
    for (const m of opts.candidates ?? []) if (!estimates.some((e) => e.model === m)) estimates.push({ model: m, p: pool.p, cost: pool.cost, strength: pool.strength, samples: 0 });
    return { ...rankEstimates({ size: 0, estimates, costs: estimates.map((e) => e.cost.toNumber()), scale: p.scale }, opts), fingerprint_id: null, elapsed_ms: 0 };
  }
  const cw = opts.cost_weight;
  const alternatives: ModelOption[] = p.predictions
    .map((x) => ({ model: x.model, score: gainScore(x.p, x.cost_usd, cw, p.scale), sample_size: x.tasks, avg_cost_usd: x.cost_usd.toFixed(12), success_score_mean: x.p }))
    .sort((a, b) => b.score - a.score || b.sample_size - a.sample_size || (a.model < b.model ? -1 : a.model > b.model ? 1 : 0));
  const top = alternatives[0];
  if (!top) return { chosen_model: null, confidence: 0, alternatives, sample_size: 0, ...base };
  const runnerUp = alternatives[1]?.score;
  const confidence = runnerUp === undefined ? 1 : top.score === 0 ? 0 : Math.min(1, Math.max(0, (top.score - runnerUp) / Math.abs(top.score)));
  // As expected_gain: min_confidence does not apply (the ridge and the shrunk prior already discount thin evidence).
  return { chosen_model: top.sample_size < opts.min_sample_size ? null : top.model, confidence, alternatives, sample_size: top.sample_size, ...base };
}
