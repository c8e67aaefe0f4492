import type { OutcomeTable } from './outcome-table.ts';

/**
 * The matrix oracle (RouterBench's Oracle on recorded outcomes): per task, among the models with the
 * task's highest score, the cheapest; equal costs go to the model listed first. When no model solves a
 * task (every score 0) every model ties, so the oracle plays the cheapest: it spends least and solves
 * nothing, as a hindsight router would. Returns the model index per task.
 */
export function oraclePicks(table: OutcomeTable): number[] {
  return table.score.map((scores, t) => {
    const best = Math.max(...scores);
    let pick = -1;
    scores.forEach((s, m) => {
      if (s !== best) return;
      if (pick < 0 || table.cost[t]![m]!.lt(table.cost[t]![pick]!)) pick = m;
    });
    return pick;
  });
}
