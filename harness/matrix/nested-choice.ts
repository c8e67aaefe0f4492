import type { ClusteredEstimate } from '../metrics/paired-stats.ts';
import { matrixBaselines, operatingFigures } from './operating-point.ts';
import type { OutcomeTable } from './outcome-table.ts';
import { bestFixedChoice, chooseKnob, singlePoints, subTable, type KnobPoint, type RoutingTarget } from './routing-target.ts';

/**
 * The router's chosen operating point, without selection after the fact. In a cross-fit each outer fold's
 * knob value is chosen from its training tasks alone: the protocol routed every training task by inner
 * stores that never held it (nested cross-fit), so each knob value has a validated point on the training
 * tasks; the value meeting the target routes the outer fold. When that validation shows no gain over the
 * best fixed mix (its hull-gap interval does not lie above 0), the fold is routed as the training data's
 * best fixed choice at the target instead: routing adds nothing there. No test-fold outcome is read.
 */

/** The inner validation of one cross-fit setting: inner[f][i][t] is the pick for training task t of outer fold f at knob i (−1 off fold f's training set). */
export interface NestedPicks {
  folds: readonly number[];
  inner: readonly (readonly (readonly number[])[])[];
}

/** One outer fold's choice. */
export interface FoldChoice {
  fold: number;
  /** The knob index chosen (into the sweep's cost weights). */
  knob: number;
  /** The validated point at that knob on the fold's training tasks. */
  validated: KnobPoint;
  /** Its hull gap on the training tasks (pts), with its interval. */
  validated_gap: ClusteredEstimate;
  /** The fixed model routed instead when the validation shows no gain; null when the router routes. */
  fallback: number | null;
}

/** The chosen point of a setting: one pick per task and how each fold got it. */
export interface ChosenPicks {
  picks: number[];
  byFold: FoldChoice[];
  chosenBy: 'nested' | 'declared' | 'prefix';
}

/** The index of a declared cost_weight in the sweep (the run adds it to the sweep when missing). */
export function declaredKnob(costWeights: readonly number[], target: RoutingTarget): number {
  if (target.kind !== 'cost_weight') return -1;
  const i = costWeights.findIndex((w) => Math.abs(w - target.value) < 1e-12);
  if (i < 0) throw new RangeError(`the declared cost_weight ${target.value} is not among the swept cost weights ${costWeights.join(',')}`);
  return i;
}

/** Validates the knob on `rows` (inner picks) and picks the knob and whether to fall back. */
function chooseOn(table: OutcomeTable, rows: readonly number[], pickAt: (i: number, t: number) => number, knobs: number, target: RoutingTarget, declared: number): Omit<FoldChoice, 'fold'> {
  const train = subTable(table, rows);
  const singles = singlePoints(train);
  const points: KnobPoint[] = [];
  for (let i = 0; i < knobs; i++) {
    let rate = 0;
    let cost = 0;
    rows.forEach((t, j) => {
      const m = pickAt(i, t);
      if (m < 0) throw new RangeError(`task ${t} has no validated pick at knob ${i}: the inner folds must cover every training task`);
      rate += train.score[j]![m]!;
      cost += train.costF[j]![m]!;
    });
    points.push({ rate: rate / rows.length, cost: cost / rows.length });
  }
  const knob = declared >= 0 ? declared : chooseKnob(points, singles, target);
  const b = matrixBaselines(train);
  const gap = operatingFigures(
    b,
    rows.map((t) => pickAt(knob, t)),
  ).hull_gap_pts;
  const gains = gap.ci_low !== null && gap.ci_low > 0;
  return { knob, validated: points[knob]!, validated_gap: gap, fallback: gains ? null : bestFixedChoice(singles, target) };
}

/** The chosen picks of a cross-fit setting from its outer sweep and its inner validation. */
export function nestedChoice(table: OutcomeTable, costWeights: readonly number[], outer: readonly (readonly number[])[], nested: NestedPicks, target: RoutingTarget): ChosenPicks {
  const n = table.score.length;
  if (nested.folds.length !== n) throw new RangeError(`nested folds has ${nested.folds.length} entries for ${n} tasks`);
  const declared = declaredKnob(costWeights, target);
  const picks = new Array<number>(n).fill(-1);
  const byFold: FoldChoice[] = [];
  const k = nested.inner.length;
  for (let f = 0; f < k; f++) {
    const test = nested.folds.flatMap((x, t) => (x === f ? [t] : []));
    const train = nested.folds.flatMap((x, t) => (x === f ? [] : [t]));
    if (test.length === 0) continue;
    const inner = nested.inner[f]!;
    const c = chooseOn(table, train, (i, t) => inner[i]![t]!, costWeights.length, target, declared);
    for (const t of test) picks[t] = c.fallback ?? outer[c.knob]![t]!;
    byFold.push({ fold: f, ...c });
  }
  return { picks, byFold, chosenBy: declared >= 0 ? 'declared' : 'nested' };
}

/** The share of the arrival order an online router is calibrated on before its point is judged. */
export const ONLINE_WINDOW = 0.2;

/**
 * Online: the knob is chosen on the first 20% of the arrival order (every model's outcome of those tasks,
 * as a labelled calibration batch), and the chosen point is judged on the tasks after it only. Returns the
 * picks of the tasks after the window (−1 on the window) and the rows judged.
 */
export function prefixChoice(table: OutcomeTable, costWeights: readonly number[], sweep: readonly (readonly number[])[], order: readonly number[], target: RoutingTarget): ChosenPicks & { judged: number[] } {
  const cut = Math.ceil(order.length * ONLINE_WINDOW);
  const window = order.slice(0, cut);
  const judged = order.slice(cut).sort((a, b) => a - b);
  const declared = declaredKnob(costWeights, target);
  const c = chooseOn(table, window, (i, t) => sweep[i]![t]!, costWeights.length, target, declared);
  const picks = new Array<number>(table.score.length).fill(-1);
  for (const t of judged) picks[t] = c.fallback ?? sweep[c.knob]![t]!;
  return { picks, byFold: [{ fold: 0, ...c }], chosenBy: declared >= 0 ? 'declared' : 'prefix', judged };
}
