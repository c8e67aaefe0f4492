import { SetupError } from '../errors.ts';
import { pointOfPicks, type MatrixPoint, type OutcomeTable } from './outcome-table.ts';

/**
 * The router's operating target (`--target`): what the knob (slot 4's cost_weight) must reach, declared
 * before any outcome is seen. `cost_weight=X` fixes the knob; `budget=USD` asks for the best solved rate
 * at most USD a task; `quality=PTS` asks for the cheapest point within PTS points of the best single
 * model. Budget and quality are met by a knob chosen inside each training fold (nested cross-fit), so the
 * point a report judges is never picked after its test fold is seen.
 */
export type RoutingTarget = { kind: 'cost_weight'; value: number } | { kind: 'budget'; value: number } | { kind: 'quality'; value: number };

/** The documented default: within 2 points of the best single model, as cheaply as possible. */
export const DEFAULT_TARGET: RoutingTarget = { kind: 'quality', value: 2 };

/** The target as `--target` spells it. */
export function targetText(t: RoutingTarget): string {
  return `${t.kind}=${t.value}`;
}

/** Parses `--target cost_weight=X | budget=USD | quality=PTS`; undefined gives the default. */
export function parseTarget(text: string | undefined): RoutingTarget {
  if (text === undefined || text.trim() === '') return DEFAULT_TARGET;
  const m = /^\s*(cost_weight|budget|quality)\s*=\s*([0-9]*\.?[0-9]+(?:e-?[0-9]+)?)\s*$/i.exec(text);
  const fix = 'write --target cost_weight=X (0..1), budget=USD_PER_TASK or quality=PTS (points below the best single model), e.g. --target quality=2';
  if (!m) throw new SetupError(`--target '${text}': not understood; ${fix}`);
  const kind = m[1]!.toLowerCase() as RoutingTarget['kind'];
  const value = Number(m[2]);
  if (!Number.isFinite(value) || value < 0 || (kind === 'cost_weight' && value > 1)) throw new SetupError(`--target '${text}': value out of range; ${fix}`);
  return { kind, value };
}

/** A router's (or a rule's) validated point at one knob value: what it solved and spent on the validation tasks. */
export interface KnobPoint {
  rate: number;
  cost: number;
}

/** The tasks' rows of `table` only (same models, same order of the given rows). */
export function subTable(table: OutcomeTable, rows: readonly number[]): OutcomeTable {
  return {
    models: table.models,
    taskIds: rows.map((t) => table.taskIds[t]!),
    clusters: rows.map((t) => table.clusters[t]!),
    score: rows.map((t) => table.score[t]!),
    cost: rows.map((t) => table.cost[t]!),
    costF: rows.map((t) => table.costF[t]!),
  };
}

/** Each single model's point on `table`, as floats. */
export function singlePoints(table: OutcomeTable): KnobPoint[] {
  return table.models.map((_, m) => {
    const p: MatrixPoint = pointOfPicks(
      table,
      table.score.map(() => m),
    );
    return { rate: p.solved_rate, cost: p.cost_per_task_usd.toNumber() };
  });
}

/**
 * The index of the knob value that meets `target` given each value's validated point (`points[i]`) and the
 * single models' points on the same tasks. quality: the cheapest point within PTS of the best single model
 * (else the best rate); budget: the best rate at most USD a task (else the cheapest). Ties go to the lower
 * index. cost_weight: the best of slot 4's score (1 − w)·rate − w·cost / (cost spread of the single models),
 * so a rule with its own knob (the lookup, the cost-only rule) meets a declared cost_weight as the router means it.
 */
export function chooseKnob(points: readonly KnobPoint[], singles: readonly KnobPoint[], target: RoutingTarget): number {
  if (points.length === 0) throw new RangeError('chooseKnob: no knob values to choose from');
  const idx = points.map((_, i) => i);
  const byRate = (a: number, b: number) => points[b]!.rate - points[a]!.rate || points[a]!.cost - points[b]!.cost || a - b;
  const byCost = (a: number, b: number) => points[a]!.cost - points[b]!.cost || points[b]!.rate - points[a]!.rate || a - b;
  if (target.kind === 'quality') {
    const floor = Math.max(...singles.map((s) => s.rate)) - target.value / 100 - 1e-12;
    const ok = idx.filter((i) => points[i]!.rate >= floor);
    return ok.length ? ok.sort(byCost)[0]! : idx.sort(byRate)[0]!;
  }
  if (target.kind === 'budget') {
    const ok = idx.filter((i) => points[i]!.cost <= target.value + 1e-15);
    return ok.length ? ok.sort(byRate)[0]! : idx.sort(byCost)[0]!;
  }
  // A declared cost_weight chooses the knob value (or fixed model) that maximises slot 4's own score on these tasks.
  const w = target.value;
  const costs = singles.map((s) => s.cost);
  const scale = Math.max(...costs) - Math.min(...costs);
  const score = (p: KnobPoint) => (1 - w) * p.rate - (scale > 0 ? (w * p.cost) / scale : 0);
  return idx.sort((a, b) => score(points[b]!) - score(points[a]!) || points[a]!.cost - points[b]!.cost || a - b)[0]!;
}

/**
 * The best fixed single model at `target` on `singles` (points of one table): quality, the cheapest within
 * PTS of the best; budget, the best at most USD a task (else the cheapest); cost_weight, the argmax of
 * slot 4's own score (1 − w)·rate − w·cost / (cost spread of the pool), so "fixed" means what the knob means.
 */
export function bestFixedChoice(singles: readonly KnobPoint[], target: RoutingTarget): number {
  return chooseKnob(singles, singles, target);
}
