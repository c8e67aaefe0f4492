// What the matrix run computes once and shares (docs/decisions.md, 2026-11-29: the MMLU run's CPU): each
// task's structural features for every fold's router, and no promise where nothing waits.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Decimal } from 'decimal.js';
import { describe, expect, it } from 'vitest';
import { isFrozenFeatures } from '../../runtime/patterns/structural-features.ts';
import { interruptible } from '../protocols/matrix-run-protocol.ts';
import { loadOutcomeMatrix } from './outcome-matrix.ts';
import { outcomeTable } from './outcome-table.ts';
import { matrixRouting, protocolDeps } from './run-matrix.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));

async function gsm8k(tasks: number) {
  const full = await loadOutcomeMatrix(join(root, 'workloads', 'routellm-gsm8k'));
  const matrix = { ...full, tasks: full.tasks.slice(0, tasks), cells: full.cells.slice(0, tasks) };
  const table = outcomeTable(matrix);
  return { matrix, deps: protocolDeps(matrix, table, matrixRouting({}, {}, root), [0, 0.1]) };
}

describe('the matrix run shares what does not depend on the fold', () => {
  it("every fold's router hands out one frozen features object per task and mode", async () => {
    const { matrix, deps } = await gsm8k(20);
    const a = deps.openStore(':memory:');
    const b = deps.openStore(':memory:');
    try {
      const ra = deps.routerFor(a);
      const rb = deps.routerFor(b, 1);
      for (const task of matrix.tasks)
        for (const mode of ['known', 'new'] as const) {
          const f = ra.features(task, mode);
          expect(rb.features(task, mode)).toBe(f);
          expect(isFrozenFeatures(f)).toBe(true);
        }
      expect(ra.features(matrix.tasks[0]!, 'known')).not.toEqual(ra.features(matrix.tasks[0]!, 'new'));
    } finally {
      a.close();
      b.close();
    }
  });

  it('a v1 store learns and warms synchronously: no promise per seeded outcome', async () => {
    const { matrix, deps } = await gsm8k(3);
    const store = deps.openStore(':memory:');
    try {
      const router = deps.routerFor(store);
      const task = matrix.tasks[0]!;
      expect(router.warm(task)).toBeUndefined();
      expect(router.learn(task, 'known', 'seed:t0:m0', 0, { score: 1, costUsd: new Decimal('0.001') })).toBeUndefined();
      expect(router.learn(task, 'known', 'seed:t0:m1', 1, { score: 0, costUsd: new Decimal('0.01') })).toBeUndefined();
      expect(store.size().outcomes).toBe(2);
    } finally {
      store.close();
    }
  });

  it('the interrupt check answers a promise only at a look (every 1,000 decisions)', async () => {
    const ac = new AbortController();
    let ticked = 0;
    const onRouted = interruptible(ac.signal, (n) => (ticked += n));
    for (let i = 0; i < 999; i++) expect(onRouted(1)).toBeUndefined();
    const look = onRouted(1);
    expect(look).toBeInstanceOf(Promise);
    await look;
    expect(onRouted(1)).toBeUndefined();
    expect(ticked).toBe(1001);
  });

  it('decisions redone after a draw (told as 0) add nothing to the meter but still reach a look, where a Ctrl-C stops the run', async () => {
    const ac = new AbortController();
    let ticked = 0;
    const onRouted = interruptible(ac.signal, (n) => (ticked += n));
    for (let i = 0; i < 999; i++) expect(onRouted(0)).toBeUndefined();
    ac.abort();
    await expect(onRouted(0)).rejects.toThrow(/interrupted/);
    expect(ticked).toBe(0);
  });
});
