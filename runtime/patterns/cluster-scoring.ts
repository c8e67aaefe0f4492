import { Decimal } from 'decimal.js';
import { sortFew } from '../core/sort-few.ts';
import { costScale, gainScore, hierarchicalEstimates, noEvidence, poolPrior, thompsonDraw, type ModelEstimate, type ModelEvidence } from './expected-gain.ts';
import type { EvidenceOptions, ModelOption, ModelPriors, NeighborMatch, NeighborSummary, PatternRecommendation, RecommendEvidence, RecommendOptions } from './pattern-store.ts';

export type { ModelPriors };

/** The scoring half of a recommendation: everything but timing and the exact-match fingerprint id. */
export interface ClusterVerdict {
  chosen_model: string | null;
  confidence: number;
  alternatives: ModelOption[];
  sample_size: number;
  k_cluster_size: number;
}

interface ModelTally {
  model: string;
  /** Raw samples in the cluster: what the min_sample_size gate and `sample_size` report. */
  samples: number;
  scoredSamples: number;
  /** Σ w·success_score_count and Σ w·sample_size: the denominators of the weighted means (integers when uniform). */
  scoredWeight: number;
  sampleWeight: number;
  successWeighted: number;
  costWeighted: Decimal;
}

/**
 * Bandwidth h of the `similarity_weighted` kernel exp(-(1 - s)/h). At 0.1 a neighbour 0.1 less similar
 * weighs e⁻¹ as much, and a row of another workload (similarity ≤ 0.15 under the §5.3 workload blend)
 * weighs ~e⁻⁸ of a same-workload one (≥ 0.85), so it can no longer outvote the workload's own evidence.
 */
export const SIMILARITY_BANDWIDTH = 0.1;

/** A neighbour's kernel weight under `scoring` (multiplies its sample counts): 1 when uniform. */
export function neighborWeight(similarity: number, scoring: RecommendOptions['scoring']): number {
  return scoring === 'similarity_weighted' || scoring === 'expected_gain' ? Math.exp(-(1 - similarity) / SIMILARITY_BANDWIDTH) : 1;
}

/** The neighbours that enter scoring: those at or above `min_similarity` (all when it is omitted or 0). */
export function clusterOf(all: readonly NeighborMatch[], opts: RecommendOptions): readonly NeighborMatch[] {
  const floor = opts.min_similarity ?? 0;
  return floor > 0 ? all.filter((n) => n.similarity >= floor) : all;
}

/** The rows `scoreCluster` scored, in the K-NN's order, summarised for pattern.matched (similarity to 4 decimals). */
export function summarizeNeighbors(all: readonly NeighborMatch[], opts: RecommendOptions): NeighborSummary[] {
  return clusterOf(all, opts).map((n) => ({
    fingerprint_id: n.fingerprint_id,
    primary_model: n.primary_model,
    similarity: Math.round(n.similarity * 10_000) / 10_000,
    sample_size: n.sample_size,
    success_score_mean: n.success_score_mean,
  }));
}

/**
 * Scores each model of a K-cluster (pattern-store.md §8.3, weighted per §8.4) and applies the
 * confidence and sample-size gates. Success is weighted by each row's scored samples (equal to its
 * sample_size once every verdict is in): a row whose verdicts have not arrived holds no quality
 * evidence, so a model with none in the cluster is not scored. Cost is the sample-weighted mean.
 *
 * Two deviations from the spec, both off when the options are omitted (routing.yaml turns both on by
 * default, chosen by measurement, docs/decisions.md): `min_similarity` drops neighbours below the floor
 * before anything is counted, and `scoring: similarity_weighted` multiplies each row's counts by
 * `neighborWeight` in both means (the gate still counts raw samples).
 */
export function scoreCluster(all: readonly NeighborMatch[], opts: RecommendOptions, priors?: ModelPriors): ClusterVerdict {
  if (opts.scoring === 'expected_gain') return scoreExpectedGain(all, opts, priors ?? { global: [], workspace: null });
  return rankTallies(tallyCluster(all, opts), opts);
}

/** What scoreCluster computes before the cost_weight enters: the cluster's size and each scored model's means. */
interface ClusterTallies {
  size: number;
  models: { model: string; samples: number; success: number; efficiency: number; avg_cost_usd: string }[];
}

/** The cost_weight-free half of scoreCluster (uniform / similarity_weighted). */
function tallyCluster(all: readonly NeighborMatch[], opts: RecommendOptions): ClusterTallies {
  const neighbors = clusterOf(all, opts);
  const tallies = new Map<string, ModelTally>();
  for (const n of neighbors) {
    let t = tallies.get(n.primary_model);
    if (!t)
      tallies.set(
        n.primary_model,
        (t = { model: n.primary_model, samples: 0, scoredSamples: 0, scoredWeight: 0, sampleWeight: 0, successWeighted: 0, costWeighted: new Decimal(0) }),
      );
    const w = neighborWeight(n.similarity, opts.scoring);
    t.samples += n.sample_size;
    t.scoredSamples += n.success_score_count;
    t.scoredWeight += w * n.success_score_count;
    t.sampleWeight += w * n.sample_size;
    t.successWeighted += w * n.success_score_mean * n.success_score_count;
    // Uniform: w·n = n exactly, so the cost sum is the spec's Σ cost·n to the last digit.
    t.costWeighted = t.costWeighted.plus(n.avg_cost_usd.times(w * n.sample_size));
  }
  const scored = [...tallies.values()].filter((t) => t.scoredSamples > 0 && t.samples > 0 && t.scoredWeight > 0 && t.sampleWeight > 0);
  const costs = scored.map((t) => t.costWeighted.div(t.sampleWeight));
  const maxCost = costs.length ? Decimal.max(...costs) : new Decimal(0);
  const minCost = costs.length ? Decimal.min(...costs) : new Decimal(0);
  const spread = maxCost.minus(minCost);
  return {
    size: neighbors.length,
    models: scored.map((t, i) => ({
      model: t.model,
      samples: t.samples,
      success: t.successWeighted / t.scoredWeight,
      // Identical costs zero the efficiency term, so the score falls to pure quality (§8.5).
      efficiency: spread.isZero() ? 0 : maxCost.minus(costs[i]!).div(spread).toNumber(),
      avg_cost_usd: costs[i]!.toDecimalPlaces(12).toFixed(),
    })),
  };
}

/** The cost_weight half of scoreCluster: each model's score, the ranking and the gates. */
function rankTallies(tallies: ClusterTallies, opts: RecommendOptions): ClusterVerdict {
  const cw = opts.cost_weight;
  const alternatives: ModelOption[] = tallies.models.map((t) => ({
    model: t.model,
    score: (1 - cw) * t.success + cw * t.efficiency,
    sample_size: t.samples,
    avg_cost_usd: t.avg_cost_usd,
    success_score_mean: t.success,
  }));
  sortFew(alternatives, (a, b) => b.score - a.score || b.sample_size - a.sample_size || (a.model < b.model ? -1 : a.model > b.model ? 1 : 0));
  const top = alternatives[0];
  if (!top) return { chosen_model: null, confidence: 0, alternatives, sample_size: 0, k_cluster_size: tallies.size };
  const runnerUp = alternatives[1]?.score ?? 0;
  const confidence = top.score > 0 ? (top.score - runnerUp) / top.score : 0;
  const gated = confidence < opts.min_confidence || top.sample_size < opts.min_sample_size;
  return { chosen_model: gated ? null : top.model, confidence, alternatives, sample_size: top.sample_size, k_cluster_size: tallies.size };
}

/** Each model's neighbour evidence, weighted by the similarity kernel (the rows at or above min_similarity). */
export function neighborEvidence(neighbors: readonly NeighborMatch[]): ModelEvidence[] {
  const by = new Map<string, ModelEvidence>();
  for (const n of neighbors) {
    let e = by.get(n.primary_model);
    if (!e) by.set(n.primary_model, (e = noEvidence(n.primary_model)));
    const w = neighborWeight(n.similarity, 'expected_gain');
    e.samples += n.sample_size;
    e.scoredWeight += w * n.success_score_count;
    e.successSum += w * n.success_score_mean * n.success_score_count;
    e.costWeight += w * n.sample_size;
    e.costSum = e.costSum.plus(n.avg_cost_usd.times(w * n.sample_size));
  }
  return [...by.values()];
}

/**
 * `pattern.scoring: expected_gain` (a deviation from §8.3, chosen by measurement on recorded outcomes,
 * docs/decisions.md): P(solve) and cost per model from the similarity-weighted neighbours, shrunk to the
 * workspace's rates and those to the store's (expected-gain.ts), scored (1 − cw)·p − cw·cost / scale with
 * the store-wide cost spread as scale, so a dearer model wins when its expected gain per extra dollar clears
 * the cost_weight. Gates: min_sample_size on the chosen model's neighbour + workspace samples; min_confidence
 * does not apply (the shrinkage already discounts thin evidence). With `exploration: thompson` and a
 * `random`, each model's P(solve) is a Beta draw around its estimate; `candidates` the store has never
 * seen are estimated at the pool prior (the seen models' mean rate, spread and mean cost: poolPrior), never
 * a free optimistic draw; and no gate applies. With a `regret_budget`, a draw whose choice is worse than the
 * best estimate by more points than are left takes the best estimate instead, and what it costs is charged.
 */
export function scoreExpectedGain(all: readonly NeighborMatch[], opts: RecommendOptions, priors: ModelPriors): ClusterVerdict {
  return rankEstimates(estimateCluster(all, opts, priors), opts);
}

/** What scoreExpectedGain computes before the cost_weight and any draw enter. */
export interface ClusterEstimates {
  size: number;
  estimates: ModelEstimate[];
  /** Each estimate's cost as a float, in `estimates` order. */
  costs: number[];
  scale: number;
}

function estimateCluster(all: readonly NeighborMatch[], opts: RecommendOptions, priors: ModelPriors): ClusterEstimates {
  const neighbors = clusterOf(all, opts);
  // With exploration the unseen candidates join at the pool prior; that is fixed by the evidence, the
  // candidates and whether exploration is on, never by the cost_weight or a draw.
  const pool = opts.exploration === 'thompson' && opts.random ? poolPrior(priors.global) : null;
  const estimates: ModelEstimate[] = hierarchicalEstimates(priors.global, priors.workspace, neighborEvidence(neighbors), pool !== null);
  if (pool)
    for (const m of opts.candidates ?? [])
      if (!estimates.some((e) => e.model === m)) estimates.push({ model: m, p: pool.p, cost: pool.cost, strength: pool.strength, samples: 0 });
  return { size: neighbors.length, estimates, costs: estimates.map((e) => e.cost.toNumber()), scale: costScale(priors.global) };
}

/**
 * Ranks model estimates at the knobs: (1 − cw)·p − cw·cost/scale, each p a Thompson draw under exploration
 * (bounded by the regret budget), else the estimate itself, gated by min_sample_size. Shared by
 * `expected_gain` and `learned` scoring's exploration.
 */
export function rankEstimates(c: ClusterEstimates, opts: RecommendOptions): ClusterVerdict {
  const explore = opts.exploration === 'thompson' && opts.random ? opts.random : null;
  const { estimates, scale } = c;
  const cw = opts.cost_weight;
  const options: (ModelOption & { mean: number })[] = estimates.map((e, i) => {
    const p = explore ? thompsonDraw(e, explore) : e.p;
    const cost = c.costs[i]!;
    return { model: e.model, score: gainScore(p, cost, cw, scale), sample_size: e.samples, avg_cost_usd: e.cost.toDecimalPlaces(12).toFixed(), success_score_mean: e.p, mean: gainScore(e.p, cost, cw, scale) };
  });
  const order = (a: { score: number; sample_size: number; model: string }, b: { score: number; sample_size: number; model: string }) =>
    b.score - a.score || b.sample_size - a.sample_size || (a.model < b.model ? -1 : a.model > b.model ? 1 : 0);
  sortFew(options, order);
  if (explore && opts.regret_budget) opts.regret_budget.turn();
  if (explore && opts.regret_budget && options.length > 1) {
    // Expected regret of following the draw: how far its choice's estimated utility is below the best's.
    const best = [...options].sort((a, b) => order({ ...a, score: a.mean }, { ...b, score: b.mean }))[0]!;
    const regret = 100 * (best.mean - options[0]!.mean);
    if (regret > opts.regret_budget.remaining()) {
      // Over budget: the best estimate leads; the drawn scores still order the rest.
      options.splice(options.indexOf(best), 1);
      options.unshift(best);
    } else opts.regret_budget.spend(regret);
  }
  const alternatives: ModelOption[] = options.map(({ mean: _mean, ...o }) => o);
  const top = alternatives[0];
  if (!top) return { chosen_model: null, confidence: 0, alternatives, sample_size: 0, k_cluster_size: c.size };
  const runnerUp = alternatives[1]?.score;
  const confidence = runnerUp === undefined ? 1 : top.score === 0 ? 0 : Math.min(1, Math.max(0, (top.score - runnerUp) / Math.abs(top.score)));
  const gated = !explore && top.sample_size < opts.min_sample_size;
  return { chosen_model: gated ? null : top.model, confidence, alternatives, sample_size: top.sample_size, k_cluster_size: c.size };
}

/** The evidence of an unreadable store: scores to the empty recommendation. */
export function failedEvidence(elapsedMs: number): RecommendEvidence {
  return { nearest: [], priors: undefined, fingerprint_id: null, elapsed_ms: elapsedMs, failed: true };
}

/** The options that decide what evidence a recommendation needs: evidence gathered under equal keys is interchangeable. */
export function evidenceKey(opts: EvidenceOptions): string {
  return `${opts.k ?? 10}:${opts.scoring === 'expected_gain' ? 'priors' : 'none'}`;
}

/**
 * The scoring half of a recommendation: a pure function of the gathered evidence and the knobs, so one
 * turn's neighbours serve every cost_weight of a sweep. `store.recommend(f, o)` is exactly
 * `scoreEvidence(store.evidence(f, o), o)` (elapsed_ms aside, which is timing). Draws from `opts.random`
 * only as `recommend` does (expected_gain with thompson exploration).
 */
export function scoreEvidence(ev: RecommendEvidence, opts: RecommendOptions, elapsedMs = 0): PatternRecommendation {
  if (ev.failed) return { chosen_model: null, confidence: 0, alternatives: [], sample_size: 0, k_cluster_size: 0, fingerprint_id: null, elapsed_ms: ev.elapsed_ms + elapsedMs };
  // A sweep scores one evidence at many cost weights: the tallies (Decimal cost means, shrunk estimates) are
  // the same at each, so they are computed once per (evidence, scoring, min_similarity); only the ranking runs per call.
  // The pooled candidates enter the estimates only when exploring, so they are part of the key then.
  const pooled = opts.scoring === 'expected_gain' && opts.exploration === 'thompson' && opts.random ? `:pool:${(opts.candidates ?? []).join(',')}` : '';
  const key = pooled ? `${opts.scoring ?? 'uniform'}:${opts.min_similarity ?? 0}${pooled}` : plainKey(opts.scoring ?? 'uniform', opts.min_similarity ?? 0);
  // Keyed by what the half reads (the neighbours and the priors), so copies of one evidence share it.
  let byPriors = halves.get(ev.nearest);
  if (!byPriors) halves.set(ev.nearest, (byPriors = new WeakMap()));
  let byKey = byPriors.get(ev.priors ?? NO_PRIORS);
  if (!byKey) byPriors.set(ev.priors ?? NO_PRIORS, (byKey = new Map()));
  let half = byKey.get(key);
  if (!half) {
    // Frozen and shared by every recommendation of this evidence (pattern.matched copies what it emits).
    const summary = Object.freeze(summarizeNeighbors(ev.nearest, opts).map((n) => Object.freeze(n))) as NeighborSummary[];
    half = opts.scoring === 'expected_gain' ? { summary, estimates: estimateCluster(ev.nearest, opts, ev.priors ?? { global: [], workspace: null }) } : { summary, tallies: tallyCluster(ev.nearest, opts) };
    byKey.set(key, half);
  }
  const verdict = half.estimates ? rankEstimates(half.estimates, opts) : rankTallies(half.tallies!, opts);
  // Written out: Node 20's V8 adds each property that follows a spread on a slow path (about a microsecond
  // apiece, and a new hidden class each time), and this object is made once per routing decision.
  return {
    chosen_model: verdict.chosen_model,
    confidence: verdict.confidence,
    alternatives: verdict.alternatives,
    sample_size: verdict.sample_size,
    k_cluster_size: verdict.k_cluster_size,
    fingerprint_id: ev.fingerprint_id,
    elapsed_ms: ev.elapsed_ms + elapsedMs,
    neighbors: half.summary,
  };
}

/** The last key made without a pool, reused while the knobs repeat (a sweep scores every decision under one pair). */
let lastPlain = { scoring: '', minSimilarity: NaN, key: '' };
/** `${scoring}:${minSimilarity}`, one string per run of equal knobs: a map keeps a string's hash, not a fresh one's. */
function plainKey(scoring: string, minSimilarity: number): string {
  if (lastPlain.scoring !== scoring || lastPlain.minSimilarity !== minSimilarity) lastPlain = { scoring, minSimilarity, key: `${scoring}:${minSimilarity}` };
  return lastPlain.key;
}

/** The cost_weight-free half of each scored evidence, per neighbours, priors and scoring key (evidence is immutable once gathered). */
const halves = new WeakMap<readonly NeighborMatch[], WeakMap<object, Map<string, { summary: NeighborSummary[]; tallies?: ClusterTallies; estimates?: ClusterEstimates }>>>();
/** The priors key of evidence without priors. */
const NO_PRIORS = {};
