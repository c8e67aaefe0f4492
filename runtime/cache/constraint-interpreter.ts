// ConstraintInterpreter (semantic-cache-phase2.md §11): preferences in words → numeric routing constraints.

export type QualityPreference = 'low' | 'medium' | 'high' | 'max';
export type LatencyPreference = 'slow' | 'normal' | 'fast' | 'instant';

export interface RoutingConstraints {
  /** Minimum estimated quality on the spec's 1–5 scale. */
  min_quality: number;
  /** Latency budget, ms. */
  max_latency_ms: number;
}

export const QUALITY_THRESHOLDS: Readonly<Record<QualityPreference, number>> = { low: 3.0, medium: 3.5, high: 4.0, max: 4.5 };
export const LATENCY_BUDGETS_MS: Readonly<Record<LatencyPreference, number>> = { slow: 2000, normal: 500, fast: 300, instant: 150 };
/** §11.4 task-type overrides, applied after the user's preference. */
const TASK_OVERRIDES: Readonly<Record<string, RoutingConstraints>> = {
  coding: { min_quality: 4.0, max_latency_ms: 500 },
  reasoning: { min_quality: 4.0, max_latency_ms: 500 },
  legal: { min_quality: 4.2, max_latency_ms: 2000 },
};
const DEFAULTS: RoutingConstraints = { min_quality: QUALITY_THRESHOLDS.medium, max_latency_ms: LATENCY_BUDGETS_MS.normal };

export class ConstraintInterpreter {
  /** Null preferences take the medium / normal defaults; an unknown value throws naming the allowed ones. */
  interpret(quality: string | null | undefined, latency: string | null | undefined, taskType: string): RoutingConstraints {
    // Own keys only: "constructor" or "toString" must not pass as a preference or a task type.
    const q = quality == null ? DEFAULTS.min_quality : Object.hasOwn(QUALITY_THRESHOLDS, quality) ? QUALITY_THRESHOLDS[quality as QualityPreference] : undefined;
    if (q === undefined) throw new RangeError(`quality preference '${quality}' is not one of ${Object.keys(QUALITY_THRESHOLDS).join(', ')}`);
    const l = latency == null ? DEFAULTS.max_latency_ms : Object.hasOwn(LATENCY_BUDGETS_MS, latency) ? LATENCY_BUDGETS_MS[latency as LatencyPreference] : undefined;
    if (l === undefined) throw new RangeError(`latency preference '${latency}' is not one of ${Object.keys(LATENCY_BUDGETS_MS).join(', ')}`);
    const o = Object.hasOwn(TASK_OVERRIDES, taskType) ? TASK_OVERRIDES[taskType] : undefined;
    return o ? { min_quality: Math.max(q, o.min_quality), max_latency_ms: Math.min(l, o.max_latency_ms) } : { min_quality: q, max_latency_ms: l };
  }

  /** The task type's own constraints (autopilot: no user preference). */
  defaultsFor(taskType: string): RoutingConstraints {
    return this.interpret(null, null, taskType);
  }
}
