import { Decimal } from 'decimal.js';
import { describe, expect, it } from 'vitest';
import { defaultRoutingConfig, type RoutingConfig } from '../../runtime/routing/index.ts';
import { assignFolds } from './matrix-folds.ts';
import { runCrossFit, type MatrixProtocolDeps } from './matrix-protocol.ts';
import { outcomeTable, pointOfPicks, type MatrixLike } from './outcome-table.ts';
import { routingWith, testProtocolDeps } from './test-support/protocol-deps.ts';

// Issue 27 item 4: a matrix where the prompt's words carry the gain and the cluster does not. Both clusters
// hold the same mix: "integral" prompts only the strong model solves, "capital" prompts both solve. Every
// prompt has the same length and shape, so the structural fingerprint (and the cluster) cannot tell them apart.
const CHEAP = 0;
const STRONG = 1;
const N_PER_CLUSTER = 40;

interface WordsMatrix extends MatrixLike {
  tasks: { id: string; cluster: string; text: string }[];
}

function wordsMatrix(): WordsMatrix {
  const tasks: { id: string; cluster: string; text: string }[] = [];
  const cells: { score: number; costUsd: Decimal }[][] = [];
  for (const cluster of ['alpha', 'beta'])
    for (let i = 0; i < N_PER_CLUSTER; i++) {
      const hard = i % 2 === 0;
      const n = String(100 + i);
      tasks.push({ id: `${cluster}-${i}`, cluster, text: hard ? `Item ${n}: compute the integral of this expression.` : `Item ${n}: name the capital city of this country.` });
      cells.push([
        { score: hard ? 0 : 1, costUsd: new Decimal('0.001') },
        { score: 1, costUsd: new Decimal('0.01') },
      ]);
    }
  return { models: [{ id: 'cheap' }, { id: 'strong' }], tasks, cells };
}

function deps(m: WordsMatrix, routing: RoutingConfig, costWeights: readonly number[]): MatrixProtocolDeps {
  return testProtocolDeps(m, { routing, costWeights });
}

describe('scoring learned: the router reads the prompt', () => {
  const m = wordsMatrix();
  const table = outcomeTable(m);
  const folds = assignFolds(
    m.tasks.map((t) => t.cluster),
    4,
    'tasks',
    3,
  );
  // cost_weight 1/3 puts the break-even gain at 0.5 per the (strong − cheap) cost spread: the cluster's mean gain.
  const cw = [1 / 3];

  it('sends the "integral" prompts to the strong model and the "capital" prompts to the cheap one', async () => {
    const [picks] = await runCrossFit(deps(m, routingWith({ scoring: 'learned' }), cw), folds, 'known');
    m.tasks.forEach((t, i) => expect(picks![i], t.text).toBe(t.text.includes('integral') ? STRONG : CHEAP));
    const point = pointOfPicks(table, picks!);
    // Every task solved at half the strong model's share: no per-cluster choice reaches that (its best
    // mixes solve 75% at this cost: one cluster strong, the other cheap).
    expect(point.solved_rate).toBe(1);
    expect(point.cost_per_task_usd.toNumber()).toBeCloseTo(0.0055, 10);
  });

  it('in a new workspace (no workload id), the learned clusters and words still separate them', async () => {
    const [picks] = await runCrossFit(deps(m, routingWith({ scoring: 'learned' }), cw), folds, 'new');
    expect(pointOfPicks(table, picks!).solved_rate).toBe(1);
  });

  it('the old defaults (similarity_weighted, expected_gain) stay on or below the per-cluster lookup\'s frontier', async () => {
    for (const routing of [defaultRoutingConfig(), routingWith({ scoring: 'expected_gain' })]) {
      const [picks] = await runCrossFit(deps(m, routing, cw), folds, 'known');
      const point = pointOfPicks(table, picks!);
      const cost = point.cost_per_task_usd.toNumber();
      // Per-cluster choices reach (0.001, 50%), (0.0055, 75%), (0.01, 100%): a line; the words alone lift a router above it.
      expect(point.solved_rate, `${routing.pattern.scoring}: ${cost} ${point.solved_rate}`).toBeLessThanOrEqual(0.5 + (0.5 * (cost - 0.001)) / 0.009 + 1e-9);
    }
  });
});
