import type { RouteContext } from './route-context.ts';
import {
  POLICY_NAMES,
  type ChainEntry,
  type PolicyName,
  type RouteDecidedPayload,
  type ValidationFailure,
} from './route-decision.ts';
import type { RoutingPolicy } from './routing-policy.ts';

/** Checks a candidate model against the turn's needs; null when it can serve the turn. */
export type RouteValidator = (model: string, ctx: RouteContext) => ValidationFailure | null;

/** No slot chose a model that passed validation; the turn cannot be routed. */
export class NoRouteError extends Error {
  constructor(readonly chain: ChainEntry[]) {
    const why = chain.map((e) => `${e.policy}: ${e.verdict}${e.validation_failure ? ` (${e.validation_failure})` : ''}`).join('; ');
    super(`no routing policy chose a usable model: ${why}`);
    this.name = 'NoRouteError';
  }
}

/** Options for decideRoute. */
export interface DecideRouteOptions {
  /** Monotonic milliseconds for `elapsed_ms`; defaults to performance.now. */
  nowMs?: () => number;
  /** Maps a candidate (perhaps an alias such as `haiku`) to its canonical id before validation. */
  canonicalize?: (model: string) => string;
}

const defaultNowMs = () => performance.now();

function assertChainShape(policies: readonly RoutingPolicy[]): void {
  if (policies.length !== POLICY_NAMES.length || policies.some((p, i) => p.name !== POLICY_NAMES[i]))
    throw new Error(`routing chain must be ${POLICY_NAMES.join(', ')}; got ${policies.map((p) => p.name).join(', ')}`);
}

/**
 * Runs the policy chain for one turn and returns the full `route.decided` payload. The first policy
 * whose candidate passes validation wins; later candidates that pass are `deferred` (so the model the
 * chain would pick without any slot can be read off the chain), candidates that fail are `rejected`.
 * Throws NoRouteError when nothing wins.
 */
export function decideRoute(
  ctx: RouteContext,
  policies: readonly RoutingPolicy[],
  validate: RouteValidator,
  options: DecideRouteOptions = {},
): RouteDecidedPayload {
  const now = options.nowMs ?? defaultNowMs;
  const canonical = options.canonicalize ?? ((m: string) => m);
  const t0 = now();
  assertChainShape(policies);
  let winner = -1;
  const chain = policies.map((policy, i): ChainEntry => {
    const p = policy.evaluate(ctx);
    const entry: ChainEntry = {
      policy: policy.name,
      verdict: 'not_applicable',
      candidate_model: null,
      reason: p.reason,
      rule_name: null,
      confidence: null,
      pattern_alternatives: null,
      validation_failure: null,
    };
    if (p.verdict === 'not_applicable') return entry;
    entry.candidate_model = canonical(p.candidate_model);
    entry.rule_name = p.rule_name ?? null;
    entry.confidence = p.confidence ?? null;
    entry.pattern_alternatives = p.pattern_alternatives ?? null;
    entry.validation_failure = validate(entry.candidate_model, ctx);
    if (entry.validation_failure) entry.verdict = 'rejected';
    else if (winner < 0) {
      entry.verdict = 'chose';
      winner = i;
    } else entry.verdict = 'deferred';
    return entry;
  });
  if (winner < 0) throw new NoRouteError(chain);
  return { chosen_model: chain[winner]!.candidate_model!, winner_index: winner, elapsed_ms: now() - t0, chain };
}

/**
 * The model the chain would have chosen had `policy` abstained: the winner if `policy` did not win,
 * else the first later slot that was `deferred`. For the slot-4 inversion metric (spec §8.3).
 */
export function chosenWithout(decision: RouteDecidedPayload, policy: PolicyName): string | null {
  const winner = decision.chain[decision.winner_index];
  if (winner?.policy !== policy) return decision.chosen_model;
  return decision.chain.slice(decision.winner_index + 1).find((e) => e.verdict === 'deferred')?.candidate_model ?? null;
}
