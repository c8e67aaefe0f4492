// AdvancedRouter (semantic-cache-phase2.md §12): autopilot, guided and explicit modes over the model
// registry and price table. Quality and latency estimates come from the models' sim profiles (competence
// mapped to the spec's 1–5 scale; TTFT + output at the profile's speed): assumed values, labelled as such
// in `reason`, not measurements of the real models.
import type { Decimal } from 'decimal.js';
import type { ModelProfile, ModelRegistry } from '../models/index.ts';
import { costOf, type PriceTable } from '../pricing/index.ts';
import { ConstraintInterpreter, type RoutingConstraints } from './constraint-interpreter.ts';
import { TaskTypeDetector } from './task-type-detector.ts';

export type RoutingMode = 'autopilot' | 'guided' | 'explicit';

export interface ModelAlternative {
  model: string;
  estimated_cost_usd: string;
  estimated_quality: number;
  /** Saving of this alternative against the decision's model, percent (negative: dearer). */
  savings_percent: number;
}

export interface AdvancedRoutingDecision {
  model_name: string;
  mode: RoutingMode;
  /** Estimated quality of the chosen model, 1–5. */
  score: number;
  reason: string;
  alternatives: ModelAlternative[];
  task_type_detected: string | null;
  constraints: RoutingConstraints | null;
}

export interface AdvancedRouteRequest {
  prompt: string;
  mode?: RoutingMode;
  quality_preference?: string | null;
  latency_preference?: string | null;
  model_override?: string | null;
  /** Expected output tokens for the estimates (default 500). */
  expected_output_tokens?: number;
}

const ESTIMATE_NOTE = 'estimates from sim profiles (assumed, not measured)';

export class AdvancedRouter {
  private readonly detector = new TaskTypeDetector();
  private readonly interpreter = new ConstraintInterpreter();

  constructor(
    private readonly registry: ModelRegistry,
    private readonly prices: PriceTable,
  ) {}

  /** Spec 1–5 quality from sim competence in [0, 1]. */
  static quality(m: ModelProfile): number {
    return 1 + 4 * m.sim.competence;
  }

  private latencyMs(m: ModelProfile, outTokens: number): number {
    return m.sim.ttft_ms + (outTokens / m.sim.output_tokens_per_second) * 1000;
  }

  private cost(m: ModelProfile, prompt: string, outTokens: number): Decimal | null {
    const rates = this.prices.rates(m.id);
    if (!rates) return null;
    return costOf({ input_tokens: Math.ceil(prompt.length / 4), output_tokens: outTokens, cached_input_tokens: 0, cache_creation_input_tokens: 0 }, rates);
  }

  private priced(prompt: string, outTokens: number): Array<{ m: ModelProfile; cost: Decimal }> {
    return this.registry
      .list()
      .map((m) => ({ m, cost: this.cost(m, prompt, outTokens) }))
      .filter((x): x is { m: ModelProfile; cost: Decimal } => x.cost !== null)
      .sort((a, b) => a.cost.comparedTo(b.cost) || a.m.id.localeCompare(b.m.id));
  }

  private alternatives(chosen: { m: ModelProfile; cost: Decimal }, all: Array<{ m: ModelProfile; cost: Decimal }>): ModelAlternative[] {
    return all
      .filter((x) => x.m.id !== chosen.m.id)
      .map((x) => ({
        model: x.m.id,
        estimated_cost_usd: x.cost.toFixed(),
        estimated_quality: AdvancedRouter.quality(x.m),
        savings_percent: chosen.cost.isZero() ? 0 : chosen.cost.minus(x.cost).div(chosen.cost).times(100).toDecimalPlaces(2).toNumber(),
      }));
  }

  route(r: AdvancedRouteRequest): AdvancedRoutingDecision {
    const mode = r.mode ?? 'autopilot';
    const out = r.expected_output_tokens ?? 500;
    const all = this.priced(r.prompt, out);
    if (!all.length) throw new RangeError('no model in the registry has a price in the price table');
    if (mode === 'explicit') {
      if (!r.model_override) throw new RangeError('explicit mode needs model_override');
      const m = this.registry.resolve(r.model_override); // UnknownModelError names the known models
      const chosen = all.find((x) => x.m.id === m.id);
      if (!chosen) throw new RangeError(`${m.id} has no price in price table ${this.prices.version}`);
      return { model_name: m.id, mode, score: AdvancedRouter.quality(m), reason: `User selected ${m.id}; alternatives available (${ESTIMATE_NOTE})`, alternatives: this.alternatives(chosen, all), task_type_detected: null, constraints: null };
    }
    const detected = this.detector.detect(r.prompt);
    const constraints = mode === 'guided' ? this.interpreter.interpret(r.quality_preference, r.latency_preference, detected.task_type) : this.interpreter.defaultsFor(detected.task_type);
    const fits = all.filter((x) => AdvancedRouter.quality(x.m) >= constraints.min_quality && this.latencyMs(x.m, out) <= constraints.max_latency_ms);
    const pool = fits.length ? fits : all.filter((x) => AdvancedRouter.quality(x.m) >= constraints.min_quality);
    // Nothing meets the bar: the best model there is, and the reason says so.
    const chosen = pool[0] ?? [...all].sort((a, b) => AdvancedRouter.quality(b.m) - AdvancedRouter.quality(a.m))[0]!;
    const why =
      (mode === 'guided' ? 'User preference + optimization' : `Auto-detected ${detected.task_type}`) +
      (fits.length ? '' : pool.length ? '; no model meets the latency budget, cheapest meeting quality' : '; no model meets the quality bar, best available');
    return {
      model_name: chosen.m.id,
      mode,
      score: AdvancedRouter.quality(chosen.m),
      reason: `${why} (${ESTIMATE_NOTE})`,
      alternatives: this.alternatives(chosen, all),
      task_type_detected: detected.task_type,
      constraints,
    };
  }
}
