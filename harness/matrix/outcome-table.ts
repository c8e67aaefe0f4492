import { Decimal } from 'decimal.js';

/**
 * The numeric view of a recorded-outcome matrix that the baselines and statistics read: per task its
 * cluster, per task and model the score in [0, 1] and the cost in USD. Costs stay Decimal for the
 * figures a report prints; the interval arithmetic works on their float copies.
 */
export interface OutcomeTable {
  /** Model ids of the candidate pool, in the matrix's order. */
  models: readonly string[];
  /** Task ids, in the matrix's order. */
  taskIds: readonly string[];
  /** The cluster of each task (MMLU subject, SWE-bench repo): the unit of the clustered intervals. */
  clusters: readonly string[];
  /** score[t][m]: task t on model m, in [0, 1] (1 = solved). */
  score: readonly (readonly number[])[];
  /** cost[t][m] in USD, exact. */
  cost: readonly (readonly Decimal[])[];
  /** costF[t][m]: the same costs as floats, for the statistics. */
  costF: readonly (readonly number[])[];
}

/** The shape of a loaded matrix this module needs (harness/matrix/outcome-matrix.ts's OutcomeMatrix fits it). */
export interface MatrixLike {
  models: readonly { id: string }[];
  tasks: readonly { id: string; cluster: string }[];
  cells: readonly (readonly { score: number; costUsd: Decimal }[])[];
}

/**
 * The table of `matrix` restricted to the candidate pool `pool` (model ids, in the order given; default
 * every model). An unknown or repeated id throws a RangeError naming the known ones.
 */
export function outcomeTable(matrix: MatrixLike, pool?: readonly string[]): OutcomeTable {
  const ids = matrix.models.map((m) => m.id);
  const chosen = pool && pool.length > 0 ? [...pool] : ids;
  const seen = new Set<string>();
  const cols = chosen.map((id) => {
    const i = ids.indexOf(id);
    if (i < 0) throw new RangeError(`--models: '${id}' is not a model of this matrix; its models are ${ids.join(', ')}`);
    if (seen.has(id)) throw new RangeError(`--models: '${id}' is listed twice`);
    seen.add(id);
    return i;
  });
  const cost = matrix.cells.map((row) => cols.map((c) => row[c]!.costUsd));
  return {
    models: chosen,
    taskIds: matrix.tasks.map((t) => t.id),
    clusters: matrix.tasks.map((t) => t.cluster),
    score: matrix.cells.map((row) => cols.map((c) => row[c]!.score)),
    cost,
    costF: cost.map((row) => row.map((d) => d.toNumber())),
  };
}

/** A model's (or a router's) figures over the whole table: exact cost per task and solved rate. */
export interface MatrixPoint {
  cost_per_task_usd: Decimal;
  solved_rate: number;
}

/** The point a router reaches that plays model `picks[t]` on task t. */
export function pointOfPicks(table: OutcomeTable, picks: readonly number[]): MatrixPoint {
  const n = table.score.length;
  if (picks.length !== n) throw new RangeError(`picks has ${picks.length} entries for ${n} tasks`);
  if (n === 0) return { cost_per_task_usd: new Decimal(0), solved_rate: 0 };
  let cost = new Decimal(0);
  let solved = 0;
  picks.forEach((m, t) => {
    cost = cost.plus(table.cost[t]![m]!);
    solved += table.score[t]![m]!;
  });
  return { cost_per_task_usd: cost.div(n), solved_rate: solved / n };
}

/** Each single model's point (always that model), in pool order. */
export function singleModelPoints(table: OutcomeTable): MatrixPoint[] {
  return table.models.map((_, m) => pointOfPicks(table, table.score.map(() => m)));
}
