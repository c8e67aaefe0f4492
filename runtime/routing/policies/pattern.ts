import type { PatternRecommendation } from '../route-context.ts';
import { notApplicable, type RoutingPolicy } from '../routing-policy.ts';

/** Slot 4: the pattern store's K-NN recommendation from past outcomes of similar turns. */
export function createPatternPolicy(): RoutingPolicy {
  return {
    name: 'pattern',
    evaluate(ctx) {
      if (!ctx.recommender) return notApplicable('no pattern store');
      // Explicit beats learned: in a worker session the planner's delegate_request tier (slot 5) decides.
      if (ctx.delegate_tier !== null) return notApplicable(`worker session: the planner asked for tier '${ctx.delegate_tier}'`);
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
