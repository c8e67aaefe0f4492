import { chosenWithout } from '../../runtime/routing/decide-route.ts';
import type { RouteDecidedPayload } from '../../runtime/routing/route-decision.ts';

/** Slot-4 figures over a set of routed turns (harness-and-runtime.md §8.3). */
export interface Slot4Metrics {
  routed_turns: number;
  /** Turns whose pattern slot said `chose` or `deferred`. */
  fired: number;
  /** Turns where slot 4 chose a model other than the one the chain would have chosen without it. */
  inverted: number;
  fire_rate: number | null;
  inversion_rate: number | null;
}

/** Slot 4 "fired" on a turn when its verdict was `chose` or `deferred` (a forced model outranked it). */
export function slot4Fired(verdict: string | undefined): boolean {
  return verdict === 'chose' || verdict === 'deferred';
}

/** Fire and inversion rates of routing slot 4; rates are null when no turn was routed. */
export function slot4Metrics(decisions: readonly RouteDecidedPayload[]): Slot4Metrics {
  let fired = 0;
  let inverted = 0;
  for (const d of decisions) {
    const pattern = d.chain.find((e) => e.policy === 'pattern');
    if (slot4Fired(pattern?.verdict)) fired += 1;
    if (pattern?.verdict === 'chose') {
      const without = chosenWithout(d, 'pattern');
      if (without !== null && without !== d.chosen_model) inverted += 1;
    }
  }
  const n = decisions.length;
  return { routed_turns: n, fired, inverted, fire_rate: n ? fired / n : null, inversion_rate: n ? inverted / n : null };
}

/** Share of routed turns that went to `strongModel` (RouteLLM's call-share idea); null for none. */
export function strongCallShare(decisions: readonly Pick<RouteDecidedPayload, 'chosen_model'>[], strongModel: string): number | null {
  if (decisions.length === 0) return null;
  return decisions.filter((d) => d.chosen_model === strongModel).length / decisions.length;
}
