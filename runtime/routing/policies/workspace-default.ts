import { notApplicable, type RoutingPolicy } from '../routing-policy.ts';

/** Slot 6: the workspace's .metis/routing.yaml `default_model`. */
export function createWorkspaceDefaultPolicy(): RoutingPolicy {
  return {
    name: 'workspace_default',
    evaluate: (ctx) =>
      ctx.workspace_default_model
        ? { verdict: 'chose', candidate_model: ctx.workspace_default_model, reason: 'workspace default model' }
        : notApplicable('workspace sets no default model'),
  };
}
