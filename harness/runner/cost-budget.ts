import { readFileSync } from 'node:fs';
import { Decimal } from 'decimal.js';

/** One row of the benchmark.md §5 cost table. */
export interface CostMode {
  id: string;
  label: string;
  low: string;
  high: string;
}

const BUDGET = JSON.parse(readFileSync(new URL('../data/cost-budget.json', import.meta.url), 'utf8')) as { modes: CostMode[] };

/** The §5 table, for `bench run --help`. */
export function costModes(): readonly CostMode[] {
  return BUDGET.modes;
}

/** Which §5 mode a run is: one workload is a smoke run; otherwise the suite at the actual model's tier. */
export function costModeOf(workloads: number, actualModel: string): CostMode {
  const id = workloads <= 1 ? 'smoke' : actualModel.includes('opus') ? 'suite-opus' : actualModel.includes('sonnet') ? 'suite-sonnet' : 'suite';
  return BUDGET.modes.find((m) => m.id === id)!;
}

/**
 * benchmark.md §5: a run past twice its mode's upper bound deserves a look. The bound scales with the
 * passes and reps actually run (each seed pass costs a full pass) and, for suites, with the number of
 * workloads beyond the table's three. Returns the warning, or null.
 */
export function budgetWarning(spent: Decimal, mode: CostMode, workloadRuns: number, workloads: number): string | null {
  const suiteSize = mode.id === 'smoke' ? 1 : Math.max(1, workloads / 3);
  const scale = Number((Math.max(1, workloadRuns / Math.max(1, workloads)) * suiteSize).toFixed(2));
  const limit = new Decimal(mode.high).times(2).times(scale);
  if (spent.lte(limit)) return null;
  return `spend ${spent.toFixed(4)} USD is more than twice the cost table's upper bound (bench run --help, docs/cli.md) for "${mode.label}" (${mode.high} USD x ${scale} pass-reps): look for a regressed prompt or runaway tool cycles`;
}
