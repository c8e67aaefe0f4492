import { notApplicable, type RoutingPolicy } from '../routing-policy.ts';

/** Slot 7: the global config's `default_model`, the last resort. */
export function createGlobalDefaultPolicy(): RoutingPolicy {
  return {
    name: 'global_default',
    evaluate: (ctx) =>
      ctx.global_default_model
        ? { verdict: 'chose', candidate_model: ctx.global_default_model, reason: 'global default model' }
        : notApplicable('no global default model'),
  };
}
