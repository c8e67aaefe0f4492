import { formatAjvErrors, validatorFor } from '../core/schemas.ts';
import type { PatternSettings, RoutingFile, RoutingPreferences, RoutingRule } from '../../schemas/types/routing.ts';
import type { TierModels } from './route-context.ts';

/** Slot-4 knobs with every default applied. */
export type PatternConfig = Required<PatternSettings>;

/** routing.yaml `routing_mode`: off (the default) leaves the chain as it is (semantic-cache-phase2.md §12). */
export type RoutingModeSetting = NonNullable<RoutingFile['routing_mode']>;

/** The routing configuration in force: every section present, defaults applied. */
export interface RoutingConfig {
  default_model: string | null;
  rules: RoutingRule[];
  tiers: TierModels;
  pattern: PatternConfig;
  routing_mode: RoutingModeSetting;
  /** Guided mode's preferences; unset ones take the ConstraintInterpreter's defaults. */
  routing_preferences: RoutingPreferences;
}

/** The shared validator for routing.yaml; it also fills the schema's defaults in place. */
export const routingFileValidator = () => validatorFor<RoutingFile>('routing.schema.json');

/** Defaults from the schema itself (one source): no default model, no rules, default tiers and pattern knobs. */
export function defaultRoutingConfig(): RoutingConfig {
  const seed: RoutingFile = { rules: [], tiers: {}, pattern: {} };
  const validate = routingFileValidator();
  if (!validate(seed)) throw new Error(`routing schema defaults are invalid: ${formatAjvErrors(validate.errors).join('; ')}`);
  return { default_model: null, rules: [], tiers: seed.tiers as TierModels, pattern: seed.pattern as PatternConfig, routing_mode: 'off', routing_preferences: {} };
}

/**
 * Lays a validated routing file over `base` section by section: a section the file has replaces the
 * base's whole section (its unset keys take schema defaults, not the base's); absent sections are kept.
 */
export function mergeRoutingConfig(base: RoutingConfig, file: RoutingFile): RoutingConfig {
  return {
    default_model: file.default_model ?? base.default_model,
    rules: file.rules ?? base.rules,
    // A validated file's sections carry every default, so they are complete.
    tiers: (file.tiers as TierModels | undefined) ?? base.tiers,
    pattern: (file.pattern as PatternConfig | undefined) ?? base.pattern,
    routing_mode: file.routing_mode ?? base.routing_mode,
    routing_preferences: file.routing_preferences ?? base.routing_preferences,
  };
}

/** Names of rules that appear more than once, with the index of each repeat. */
export function duplicateRuleNames(rules: readonly RoutingRule[]): { name: string; index: number }[] {
  const seen = new Set<string>();
  const dups: { name: string; index: number }[] = [];
  rules.forEach((r, index) => {
    if (seen.has(r.name)) dups.push({ name: r.name, index });
    seen.add(r.name);
  });
  return dups;
}
