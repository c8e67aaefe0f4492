import { notApplicable, type RoutingPolicy } from '../routing-policy.ts';

/** Slot 5: a worker session gets the model of the tier its planner asked for. */
export function createDelegateRequestPolicy(): RoutingPolicy {
  return {
    name: 'delegate_request',
    evaluate: (ctx) =>
      ctx.delegate_tier
        ? { verdict: 'chose', candidate_model: ctx.tiers[ctx.delegate_tier], reason: `delegate tier '${ctx.delegate_tier}'` }
        : notApplicable('not a delegated worker session'),
  };
}
