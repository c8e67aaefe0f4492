import type { PatternRecommender, RouteContext } from '../routing/index.ts';
import type { PatternRecommendation, PatternStore, RecommendOptions } from './pattern-store.ts';
import type { StructuralFeatures } from './structural-features.ts';
import { isPatternStoreV2 } from './store-version.ts';

/** Options of `createPatternRecommender`. */
export interface PatternRecommenderOptions {
  /** The turn's fingerprint; the adapter computes nothing itself. */
  featuresOf(ctx: RouteContext): StructuralFeatures;
  /** The pattern knobs in force (read per call, so a reloaded routing.yaml applies at once). */
  options: () => RecommendOptions;
  /** v2 stores: the turn's cached embedding (null on a cache miss, which routes on v1 structural, §16.13). */
  embeddingOf?(ctx: RouteContext): Float32Array | null;
}

/**
 * Routing slot 4's view of a pattern store: a non-null `chosen_model` becomes
 * `{ model, confidence, alternatives }`. Keeps the full answer of the latest call for
 * `lastRecommendation()`, so the router can emit pattern.matched and the report can show the K-NN's scores.
 */
export function createPatternRecommender(
  store: PatternStore,
  opts: PatternRecommenderOptions,
): PatternRecommender & { lastRecommendation(): PatternRecommendation | null } {
  let last: PatternRecommendation | null = null;
  return {
    recommend(ctx) {
      last = null;
      const features = opts.featuresOf(ctx);
      const rec = isPatternStoreV2(store) && opts.embeddingOf ? store.recommend(features, opts.options(), { embedding: opts.embeddingOf(ctx) }) : store.recommend(features, opts.options());
      last = rec;
      if (rec.chosen_model === null) return null;
      return {
        model: rec.chosen_model,
        confidence: rec.confidence,
        alternatives: rec.alternatives.map(({ model, score, sample_size }) => ({ model, score, sample_size })),
      };
    },
    lastRecommendation: () => last,
  };
}
