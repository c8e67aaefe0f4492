// Routing modes in the chain (semantic-cache-phase2.md §12, issue 16): the AdvancedRouter's pick as a
// rule-level recommendation. The rule slot asks for it only when no configured rule matched, so a
// written rule still wins and the seven-slot order is unchanged.
import type { AdvancedRouter, ModelAlternative } from '../../cache/advanced-router.ts';
import type { RoutingPreferences } from '../../../schemas/types/routing.ts';
import type { RouteContext } from '../route-context.ts';
import type { RoutingModeSetting } from '../routing-config.ts';
import { notApplicable, type PolicyProposal } from '../routing-policy.ts';

/** The rule slot's fallback: a proposal for the turn from the configured routing mode. */
export type RoutingModeAdvisor = (ctx: RouteContext) => PolicyProposal;

/** Cheaper alternatives, biggest saving first, as `model (saves 80%, est. $0.0025, quality 3.4)`. */
function describeCheaper(alternatives: readonly ModelAlternative[]): string {
  const cheaper = alternatives.filter((a) => a.savings_percent > 0).sort((a, b) => b.savings_percent - a.savings_percent || a.model.localeCompare(b.model));
  if (!cheaper.length) return 'no cheaper alternative';
  return `cheaper alternatives: ${cheaper
    .map((a) => `${a.model} (saves ${a.savings_percent}%, est. $${a.estimated_cost_usd}, quality ${a.estimated_quality.toFixed(2)})`)
    .join('; ')}`;
}

/**
 * The advisor for `mode`, or null for `off`. Explicit mode keeps the model the user asked for: the
 * per-message override, else the sticky model, else the workspace then global default. It never throws:
 * an unknown model or a missing price makes the slot abstain with the reason.
 */
export function createRoutingModeAdvisor(mode: RoutingModeSetting, preferences: RoutingPreferences, router: AdvancedRouter): RoutingModeAdvisor | null {
  if (mode === 'off') return null;
  const rule_name = `routing_mode:${mode}`;
  return (ctx) => {
    try {
      if (mode === 'explicit') {
        const requested = ctx.override_model ?? ctx.sticky_model ?? ctx.workspace_default_model ?? ctx.global_default_model;
        if (!requested) return notApplicable(`${rule_name}: no model requested (no override, sticky or default model)`);
        const d = router.route({ prompt: ctx.user_message, mode, model_override: requested });
        return { verdict: 'chose', candidate_model: d.model_name, rule_name, reason: `${rule_name}: user selected ${d.model_name}; ${describeCheaper(d.alternatives)} (estimates from sim profiles, assumed)` };
      }
      const d = router.route({
        prompt: ctx.user_message,
        mode,
        quality_preference: mode === 'guided' ? (preferences.quality ?? null) : null,
        latency_preference: mode === 'guided' ? (preferences.latency ?? null) : null,
      });
      const c = d.constraints!;
      const prefs = mode === 'guided' ? `, preferences quality ${preferences.quality ?? 'medium'} latency ${preferences.latency ?? 'normal'}` : '';
      return {
        verdict: 'chose',
        candidate_model: d.model_name,
        rule_name,
        reason: `${rule_name}: task type ${d.task_type_detected}${prefs}, constraint quality >= ${c.min_quality} latency <= ${c.max_latency_ms} ms; ${d.reason}`,
      };
    } catch (e) {
      return notApplicable(`${rule_name}: ${(e as Error).message}`);
    }
  };
}
