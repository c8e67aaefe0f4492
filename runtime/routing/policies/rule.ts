import type { RoutingRule } from '../../../schemas/types/routing.ts';
import type { RouteContext } from '../route-context.ts';
import { notApplicable, type RoutingPolicy } from '../routing-policy.ts';
import type { RoutingModeAdvisor } from './routing-mode.ts';

interface CompiledRule {
  name: string;
  model: string;
  tags: ReadonlySet<string> | null;
  extensions: ReadonlySet<string> | null;
  regex: RegExp | null;
}

/** `.PY`, `py` and `.py` are the same extension. */
export const normalizeExtension = (ext: string): string => {
  const lower = ext.toLowerCase();
  return lower.startsWith('.') ? lower : `.${lower}`;
};

function compile(rule: RoutingRule): CompiledRule {
  const m = rule.match;
  return {
    name: rule.name,
    model: rule.model,
    tags: m.intent_tags ? new Set(m.intent_tags) : null,
    extensions: m.file_extensions ? new Set(m.file_extensions.map(normalizeExtension)) : null,
    // Same flags the schema's `format: regex` check compiles with, so a valid file never throws here.
    regex: m.message_regex !== undefined ? new RegExp(m.message_regex, 'iu') : null,
  };
}

function matches(rule: CompiledRule, ctx: RouteContext): boolean {
  if (rule.tags && !ctx.intent_tags.some((t) => rule.tags!.has(t))) return false;
  if (rule.extensions && !ctx.file_extensions.some((e) => rule.extensions!.has(normalizeExtension(e)))) return false;
  if (rule.regex && !rule.regex.test(ctx.user_message)) return false;
  return true;
}

/**
 * Slot 3: the first routing.yaml rule whose every criterion holds chooses its model. With a routing
 * mode on (`advisor`), a turn no rule matches gets the mode's recommendation instead of abstaining.
 */
export function createRulePolicy(rules: readonly RoutingRule[], advisor: RoutingModeAdvisor | null = null): RoutingPolicy {
  // Compiled once per config, not per turn: regex construction dominates otherwise.
  const compiled = rules.map(compile);
  return {
    name: 'rule',
    evaluate(ctx) {
      const hit = compiled.find((r) => matches(r, ctx));
      if (!hit) {
        const none = compiled.length === 0 ? 'no rules configured' : `none of ${compiled.length} rules matched`;
        if (!advisor) return notApplicable(none);
        const p = advisor(ctx);
        return { ...p, reason: `${none}; ${p.reason}` };
      }
      return { verdict: 'chose', candidate_model: hit.model, reason: `rule '${hit.name}' matched`, rule_name: hit.name };
    },
  };
}
