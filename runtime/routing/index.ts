export { createCapabilityValidator } from './capability-validator.ts';
export type { CapabilityValidatorOptions } from './capability-validator.ts';
export { chosenWithout, decideRoute, NoRouteError } from './decide-route.ts';
export type { DecideRouteOptions, RouteValidator } from './decide-route.ts';
export { loadGlobalRoutingConfig, loadRoutingConfig, readRoutingFile, readWorkspaceRouting, WORKSPACE_ROUTING_PATH } from './load-routing-config.ts';
export type { RoutingLoadResult, WorkspaceRoutingFile } from './load-routing-config.ts';
export {
  createDelegateRequestPolicy,
  createGlobalDefaultPolicy,
  createManualStickyPolicy,
  createPatternPolicy,
  createPerMessageOverridePolicy,
  createPolicyChain,
  createRulePolicy,
  createWorkspaceDefaultPolicy,
} from './policies/index.ts';
export { createRoutingModeAdvisor } from './policies/routing-mode.ts';
export type { RoutingModeAdvisor } from './policies/routing-mode.ts';
export type { DelegateTier, PatternRecommendation, PatternRecommender, RouteContext, TierModels } from './route-context.ts';
export { POLICY_NAMES } from './route-decision.ts';
export type {
  ChainEntry,
  PatternAlternative,
  PolicyName,
  RouteDecidedPayload,
  RoutingPolicyInvalidPayload,
  ValidationFailure,
  Verdict,
} from './route-decision.ts';
export { defaultRoutingConfig, mergeRoutingConfig } from './routing-config.ts';
export type { PatternConfig, RoutingConfig, RoutingModeSetting } from './routing-config.ts';
export { notApplicable } from './routing-policy.ts';
export type { PolicyAbstention, PolicyChoice, PolicyProposal, RoutingPolicy } from './routing-policy.ts';
export { createRouter } from './router.ts';
export type { PreparedRoute, RouteIds, RouterOptions, Slot4Provider, TurnRouteDecision, TurnRouter, TurnRouteRequest } from './router.ts';
export { extractTurnFeatures } from './turn-features.ts';
export type { TurnFeatures } from './turn-features.ts';
