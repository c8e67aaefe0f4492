import { Decimal } from 'decimal.js';
import type { OutcomeTable } from './outcome-table.ts';

/** One sampled position of a cumulative-regret curve. */
export interface RegretPoint {
  /** Position in the arrival order, 1-based. */
  task: number;
  /** Σ (best fixed model's score − the router's) up to this position, in tasks. */
  regret_tasks: number;
  /** Σ (the router's cost − the best fixed model's) up to this position, USD. */
  extra_cost_usd: string;
}

/**
 * The router's cumulative regret against one fixed model over the arrival order: summed per task, then
 * sampled at up to `maxPoints` positions spread evenly (the last always kept), so a report stays small on
 * any matrix. `picks[t]` is the router's pool index for task t.
 */
export function cumulativeRegret(table: OutcomeTable, order: readonly number[], picks: readonly number[], best: number, maxPoints = 101): RegretPoint[] {
  if (maxPoints < 2) throw new RangeError(`maxPoints must be >= 2, got ${maxPoints}`);
  const n = order.length;
  const step = Math.max(1, Math.ceil(n / (maxPoints - 1)));
  const out: RegretPoint[] = [];
  let regret = 0;
  let extra = new Decimal(0);
  order.forEach((t, i) => {
    const m = picks[t]!;
    if (m < 0) throw new RangeError(`task ${t} has no online pick`);
    regret += table.score[t]![best]! - table.score[t]![m]!;
    extra = extra.plus(table.cost[t]![m]!).minus(table.cost[t]![best]!);
    const pos = i + 1;
    // Rounded to 1e-9 of a task: float sums of 0/1 scores stay exact, fractional scores do not print noise.
    if (pos % step === 0 || pos === n) out.push({ task: pos, regret_tasks: Math.round(regret * 1e9) / 1e9, extra_cost_usd: extra.toDecimalPlaces(12).toFixed() });
  });
  return out;
}

/** Mean regret per task, in points, over the positions after `from` (0-based count of tasks skipped). */
export function regretAfter(series: readonly RegretPoint[], from: number): number | null {
  const end = series[series.length - 1];
  if (!end || end.task <= from) return null;
  // The last sampled position at or before `from` (the series starts at 0 regret before task 1).
  const start = [...series].reverse().find((p) => p.task <= from) ?? { task: 0, regret_tasks: 0 };
  return (100 * (end.regret_tasks - start.regret_tasks)) / (end.task - start.task);
}
