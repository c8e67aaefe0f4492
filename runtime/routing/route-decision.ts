/** The seven routing slots in chain order (harness-and-runtime.md §4). */
export const POLICY_NAMES = [
  'per_message_override',
  'manual_sticky',
  'rule',
  'pattern',
  'delegate_request',
  'workspace_default',
  'global_default',
] as const;

/** One routing slot's name. */
export type PolicyName = (typeof POLICY_NAMES)[number];

/** A slot's verdict in `route.decided` (catalog §6.5). */
export type Verdict = 'not_applicable' | 'deferred' | 'rejected' | 'chose';

/** Why a candidate model cannot serve this turn (catalog §6.5). */
export type ValidationFailure =
  | 'no_vision_support'
  | 'exceeds_context_window'
  | 'no_tool_support'
  | 'no_system_prompt_support'
  | 'no_structured_output_support'
  | 'provider_unavailable'
  | 'not_configured';

/** One model the pattern store scored for this turn. */
export interface PatternAlternative {
  model: string;
  score: number;
  sample_size: number;
}

/** One slot of `route.decided.chain`; every field present, null where it does not apply. */
export interface ChainEntry {
  policy: PolicyName;
  verdict: Verdict;
  candidate_model: string | null;
  reason: string;
  rule_name: string | null;
  confidence: number | null;
  pattern_alternatives: PatternAlternative[] | null;
  validation_failure: ValidationFailure | null;
}

/** The `route.decided` payload (catalog §6.5): the winner and the whole chain. */
export interface RouteDecidedPayload {
  chosen_model: string;
  winner_index: number;
  elapsed_ms: number;
  chain: ChainEntry[];
}

/** The `routing.policy_invalid` payload (catalog §6.5). */
export interface RoutingPolicyInvalidPayload {
  policy_path: string;
  errors: string[];
  using_last_known_good: boolean;
}
