import type { RoutingRule } from '../../../schemas/types/routing.ts';
import type { RoutingPolicy } from '../routing-policy.ts';
import { createDelegateRequestPolicy } from './delegate-request.ts';
import { createGlobalDefaultPolicy } from './global-default.ts';
import { createManualStickyPolicy } from './manual-sticky.ts';
import { createPatternPolicy } from './pattern.ts';
import { createPerMessageOverridePolicy } from './per-message-override.ts';
import { createRulePolicy } from './rule.ts';
import type { RoutingModeAdvisor } from './routing-mode.ts';
import { createWorkspaceDefaultPolicy } from './workspace-default.ts';

export {
  createDelegateRequestPolicy,
  createGlobalDefaultPolicy,
  createManualStickyPolicy,
  createPatternPolicy,
  createPerMessageOverridePolicy,
  createRulePolicy,
  createWorkspaceDefaultPolicy,
};

/**
 * The seven policies in chain order (harness-and-runtime.md §4); build once per config, reuse per turn.
 * `advisor` (routing.yaml `routing_mode`, off by default) feeds the rule slot when no rule matches.
 */
export function createPolicyChain(config: { rules: readonly RoutingRule[] }, advisor: RoutingModeAdvisor | null = null): RoutingPolicy[] {
  return [
    createPerMessageOverridePolicy(),
    createManualStickyPolicy(),
    createRulePolicy(config.rules, advisor),
    createPatternPolicy(),
    createDelegateRequestPolicy(),
    createWorkspaceDefaultPolicy(),
    createGlobalDefaultPolicy(),
  ];
}
