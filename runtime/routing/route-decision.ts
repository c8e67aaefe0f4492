// The route.decided / routing.policy_invalid shapes, derived from the catalog schemas in schemas/events/.
import type {
  PatternAlternative,
  RouteChainEntry,
  RouteDecidedPayload,
  RoutingPolicyInvalidPayload,
} from '../../schemas/types/events.ts';

export type { PatternAlternative, RouteDecidedPayload, RoutingPolicyInvalidPayload };

/** One slot of `route.decided.chain`; every field present, null where it does not apply. */
export type ChainEntry = RouteChainEntry;

/** One routing slot's name. */
export type PolicyName = RouteChainEntry['policy'];

/** A slot's verdict in `route.decided` (catalog §6.5). */
export type Verdict = RouteChainEntry['verdict'];

/** Why a candidate model cannot serve this turn (catalog §6.5). */
export type ValidationFailure = NonNullable<RouteChainEntry['validation_failure']>;

/** The seven routing slots in chain order (harness-and-runtime.md §4). */
export const POLICY_NAMES = [
  'per_message_override',
  'manual_sticky',
  'rule',
  'pattern',
  'delegate_request',
  'workspace_default',
  'global_default',
] as const satisfies readonly PolicyName[];

// Fails to compile if the catalog gains a slot this list lacks.
type _AllSlotsListed = PolicyName extends (typeof POLICY_NAMES)[number] ? true : never;
const _allSlotsListed: _AllSlotsListed = true;
void _allSlotsListed;
