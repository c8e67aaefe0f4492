import { notApplicable, type RoutingPolicy } from '../routing-policy.ts';

/** Slot 2: a model the user pinned for the session until they unpin it. */
export function createManualStickyPolicy(): RoutingPolicy {
  return {
    name: 'manual_sticky',
    evaluate: (ctx) =>
      ctx.sticky_model
        ? { verdict: 'chose', candidate_model: ctx.sticky_model, reason: 'model pinned for the session' }
        : notApplicable('no sticky model'),
  };
}
