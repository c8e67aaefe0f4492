import { notApplicable, type RoutingPolicy } from '../routing-policy.ts';

/** Slot 1: a model the user named for this one message. */
export function createPerMessageOverridePolicy(): RoutingPolicy {
  return {
    name: 'per_message_override',
    evaluate: (ctx) =>
      ctx.override_model
        ? { verdict: 'chose', candidate_model: ctx.override_model, reason: ctx.override_reason ?? 'model named on this message' }
        : notApplicable('no per-message override'),
  };
}
