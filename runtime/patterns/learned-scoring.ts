import { gainScore } from './expected-gain.ts';
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
  predict(text: string, workloadId: string | null): { predictions: PromptPrediction[]; scale: number };
  /** The recommendation for `predict`'s answer under the knobs `opts` (cost_weight, min_sample_size). */
  score(p: { predictions: PromptPrediction[]; scale: number }, opts: RecommendOptions): PatternRecommendation;
}

/** Creates the scorer over `store` (which must offer promptOutcomes; without it every answer abstains). */
export function createLearnedScorer(store: PatternStore, settings: PromptModelFile = defaultPromptModelSettings()): LearnedScorer {
  const options: PromptModelOptions = { dim: PROMPT_TERMS_DIM, lambda: settings.lambda, cluster_prior: settings.cluster_prior, k_clusters: settings.k_clusters, seed: settings.seed };
  let fitted: { model: PromptModel; rows: number; scale: number } | null = null;
  const current = (): typeof fitted => {
    const rows = store.promptOutcomes?.() ?? [];
    if (rows.length === 0) return null;
    if (!fitted || rows.length > fitted.rows * (1 + settings.refit_growth)) {
      const model = trainPromptModel(rows, options);
      const means = [...model.meanCost.values()];
      fitted = { model, rows: rows.length, scale: means.length < 2 ? 0 : Math.max(...means) - Math.min(...means) };
    }
    return fitted;
  };
  return {
    predict(text, workloadId) {
      const f = current();
      if (!f) return { predictions: [], scale: 0 };
      return { predictions: predictPrompt(f.model, hashedTerms(text, options.dim), text.length, workloadId), scale: f.scale };
    },
    score: scoreLearned,
  };
}

/** Scores predictions into a recommendation (pure): best utility first; gated by min_sample_size on the top model's training tasks. */
export function scoreLearned(p: { predictions: readonly PromptPrediction[]; scale: number }, opts: RecommendOptions): PatternRecommendation {
  const cw = opts.cost_weight;
  const alternatives: ModelOption[] = p.predictions
    .map((x) => ({ model: x.model, score: gainScore(x.p, x.cost_usd, cw, p.scale), sample_size: x.tasks, avg_cost_usd: x.cost_usd.toFixed(12), success_score_mean: x.p }))
    .sort((a, b) => b.score - a.score || b.sample_size - a.sample_size || (a.model < b.model ? -1 : a.model > b.model ? 1 : 0));
  const top = alternatives[0];
  const base = { k_cluster_size: 0, fingerprint_id: null, elapsed_ms: 0 };
  if (!top) return { chosen_model: null, confidence: 0, alternatives, sample_size: 0, ...base };
  const runnerUp = alternatives[1]?.score;
  const confidence = runnerUp === undefined ? 1 : top.score === 0 ? 0 : Math.min(1, Math.max(0, (top.score - runnerUp) / Math.abs(top.score)));
  // As expected_gain: min_confidence does not apply (the ridge and the shrunk prior already discount thin evidence).
  return { chosen_model: top.sample_size < opts.min_sample_size ? null : top.model, confidence, alternatives, sample_size: top.sample_size, ...base };
}
