import type { RouteContext } from './route-context.ts';
import type { PatternAlternative, PolicyName } from './route-decision.ts';

/** A policy proposes a model. Whether it wins, is deferred or rejected is decided by the chain. */
export interface PolicyChoice {
  verdict: 'chose';
  candidate_model: string;
  reason: string;
  rule_name?: string;
  confidence?: number;
  pattern_alternatives?: PatternAlternative[];
}

/** The policy has nothing to say about this turn. */
export interface PolicyAbstention {
  verdict: 'not_applicable';
  reason: string;
}

/** What one policy answers for one turn. */
export type PolicyProposal = PolicyChoice | PolicyAbstention;

/** One slot of the routing chain: pure, fast (the whole chain has 5 ms), never throws for a normal turn. */
export interface RoutingPolicy {
  readonly name: PolicyName;
  evaluate(ctx: RouteContext): PolicyProposal;
}

/** Shorthand for an abstention. */
export const notApplicable = (reason: string): PolicyAbstention => ({ verdict: 'not_applicable', reason });
