import type { Logger } from '../core/logger.ts';

/** Distinct skills a session may activate explicitly (context-assembler.md §5.2.4). */
export const MAX_EXPLICIT_ACTIVATIONS_PER_SESSION = 3;
/** Cumulative explicit-activation tokens at which a WARN is logged (no event). */
export const WARN_CUMULATIVE_ACTIVATION_TOKENS = 10_000;
/** Cumulative explicit-activation tokens no activation may pass. */
export const HARD_CAP_CUMULATIVE_ACTIVATION_TOKENS = 30_000;

/** The §5.2.4 caps; pre-activated skills count toward none of them. */
export interface ActivationLimits {
  maxActivations: number;
  warnTokens: number;
  hardCapTokens: number;
}

/** The spec defaults. */
export const DEFAULT_ACTIVATION_LIMITS: ActivationLimits = Object.freeze({
  maxActivations: MAX_EXPLICIT_ACTIVATIONS_PER_SESSION,
  warnTokens: WARN_CUMULATIVE_ACTIVATION_TOKENS,
  hardCapTokens: HARD_CAP_CUMULATIVE_ACTIVATION_TOKENS,
});

/** What skill_load should do with a request. */
export type ActivationDecision =
  | { kind: 'activated'; cumulativeTokens: number }
  /** The body is in the system prompt already (§5.2.2): answer with a pointer, no event. */
  | { kind: 'already_preloaded' }
  /** Loaded earlier this session (§5.2.7 q4): a pointer, no event, no budget. */
  | { kind: 'already_activated' }
  /** Over a cap: skill_load fails with `message`, which names the cap (§5.2.3). */
  | { kind: 'refused'; cap: 'activations' | 'tokens'; message: string };

/** Per-session record of pre-activations and explicit activations, enforcing the §5.2.4 budget. */
export interface SkillActivationRegistry {
  /** Records a body inlined by §5.1 padding at session start. */
  preactivate(name: string): void;
  isPreloaded(name: string): boolean;
  /** Decides an explicit skill_load of `name` whose body is `sizeTokens`; records it when activated. */
  request(name: string, sizeTokens: number): ActivationDecision;
  /** Explicitly activated skills, in activation order. */
  activated(): readonly string[];
  /** Sum of the explicit activations' `load_size_tokens`. */
  cumulativeTokens(): number;
}

const FREE_BUDGET_HINT = 'To free budget, summarize and discard previously loaded skill bodies in your next response.';

/** Creates an empty registry; `session_id` only labels the WARN log. */
export function createSkillActivationRegistry(o: { logger: Logger; session_id?: string; limits?: Partial<ActivationLimits> }): SkillActivationRegistry {
  const limits = { ...DEFAULT_ACTIVATION_LIMITS, ...o.limits };
  const preloaded = new Set<string>();
  const order: string[] = [];
  let tokens = 0;
  const loadedList = () => `Already loaded: [${order.join(', ')}].`;
  return {
    preactivate: (name) => void preloaded.add(name),
    isPreloaded: (name) => preloaded.has(name),
    activated: () => [...order],
    cumulativeTokens: () => tokens,
    request(name, sizeTokens) {
      if (preloaded.has(name)) return { kind: 'already_preloaded' };
      if (order.includes(name)) return { kind: 'already_activated' };
      if (order.length >= limits.maxActivations) {
        return {
          kind: 'refused',
          cap: 'activations',
          message: `activation budget exhausted: ${order.length} skills already activated this session (limit ${limits.maxActivations} activations per session). ${loadedList()} ${FREE_BUDGET_HINT}`,
        };
      }
      if (tokens + sizeTokens > limits.hardCapTokens) {
        return {
          kind: 'refused',
          cap: 'tokens',
          message: `activation budget exhausted: loading '${name}' (${sizeTokens} tokens) would bring this session's skill activations to ${tokens + sizeTokens} tokens (hard cap ${limits.hardCapTokens} tokens). ${loadedList()} ${FREE_BUDGET_HINT}`,
        };
      }
      const before = tokens;
      tokens += sizeTokens;
      order.push(name);
      if (before < limits.warnTokens && tokens >= limits.warnTokens) {
        o.logger.log('warn', 'skill activations passed the warning threshold', {
          session_id: o.session_id ?? null,
          cumulative_tokens: tokens,
          warn_tokens: limits.warnTokens,
          hard_cap_tokens: limits.hardCapTokens,
          activated: [...order],
        });
      }
      return { kind: 'activated', cumulativeTokens: tokens };
    },
  };
}
