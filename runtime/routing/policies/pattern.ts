import type { PatternRecommendation } from '../route-context.ts';
import { notApplicable, type RoutingPolicy } from '../routing-policy.ts';

/** Slot 4: the pattern store's K-NN recommendation from past outcomes of similar turns. */
export function createPatternPolicy(): RoutingPolicy {
  return {
    name: 'pattern',
    evaluate(ctx) {
      if (!ctx.recommender) return notApplicable('no pattern store');
      let rec: PatternRecommendation | null;
      try {
        rec = ctx.recommender.recommend(ctx);
      } catch (e) {
        // No turn fails because the pattern store is down (pattern-store.md §9.3).
        return notApplicable(`pattern store error: ${(e as Error).message}`);
      }
      if (!rec) return notApplicable('no recommendation (too little signal)');
      return {
        verdict: 'chose',
        candidate_model: rec.model,
        reason: `similar past turns favour ${rec.model}`,
        confidence: rec.confidence,
        pattern_alternatives: rec.alternatives,
      };
    },
  };
}
