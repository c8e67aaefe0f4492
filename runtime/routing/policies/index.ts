import type { RoutingRule } from '../../../schemas/types/routing.ts';
import type { RoutingPolicy } from '../routing-policy.ts';
import { createDelegateRequestPolicy } from './delegate-request.ts';
import { createGlobalDefaultPolicy } from './global-default.ts';
import { createManualStickyPolicy } from './manual-sticky.ts';
import { createPatternPolicy } from './pattern.ts';
import { createPerMessageOverridePolicy } from './per-message-override.ts';
import { createRulePolicy } from './rule.ts';
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

/** The seven policies in chain order (harness-and-runtime.md §4); build once per config, reuse per turn. */
export function createPolicyChain(config: { rules: readonly RoutingRule[] }): RoutingPolicy[] {
  return [
    createPerMessageOverridePolicy(),
    createManualStickyPolicy(),
    createRulePolicy(config.rules),
    createPatternPolicy(),
    createDelegateRequestPolicy(),
    createWorkspaceDefaultPolicy(),
    createGlobalDefaultPolicy(),
  ];
}
