// Per-model headline figures of a matrix: what `bench import` prints and `bench list` shows.
import { Decimal } from 'decimal.js';
import type { OutcomeMatrix } from './outcome-matrix.ts';

/** One model's figures over every task of the matrix. */
export interface MatrixModelSummary {
  id: string;
  /** Mean score over the tasks (the solved rate when scores are 0/1). */
  solvedRate: number;
  /** Mean cost per task, exact. */
  meanCostUsd: Decimal;
}

/** A matrix's size and per-model figures. */
export interface MatrixSummary {
  tasks: number;
  clusters: number;
  models: MatrixModelSummary[];
}

/** Sizes and per-model mean score and mean cost per task of a loaded matrix. */
export function matrixSummary(m: Pick<OutcomeMatrix, 'models' | 'tasks' | 'cells'>): MatrixSummary {
  const n = m.tasks.length;
  return {
    tasks: n,
    clusters: new Set(m.tasks.map((t) => t.cluster)).size,
    models: m.models.map((model, j) => {
      let score = 0;
      let cost = new Decimal(0);
      for (const row of m.cells) {
        score += row[j]!.score;
        cost = cost.plus(row[j]!.costUsd);
      }
      return { id: model.id, solvedRate: n ? score / n : 0, meanCostUsd: n ? cost.dividedBy(n) : cost };
    }),
  };
}
