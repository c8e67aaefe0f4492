import { Decimal } from 'decimal.js';
import { describe, expect, it } from 'vitest';
import { createVirtualClock } from '../../runtime/core/clock.ts';
import { createMemoryLogger } from '../../runtime/core/logger.ts';
import { createEventBus } from '../../runtime/events/bus.ts';
import { openPatternStore, type PatternStore } from '../../runtime/patterns/index.ts';
import { defaultRoutingConfig } from '../../runtime/routing/index.ts';
import { assignFolds } from './matrix-folds.ts';
import { runCrossFit, runInSample, runOnline, type MatrixProtocolDeps } from './matrix-protocol.ts';
import { createMatrixRouter } from './matrix-router.ts';
import { outcomeTable, type MatrixLike } from './outcome-table.ts';

const CHEAP = 0;
const STRONG = 1;

/** Two models (cheap $0.001, strong $0.01); rows of [cluster, cheap score, strong score]. */
function matrix(rows: [string, number, number][]): MatrixLike & { tasks: { id: string; cluster: string; text: string }[] } {
  return {
    models: [{ id: 'cheap' }, { id: 'strong' }],
    tasks: rows.map(([cluster], i) => ({ id: `t${i}`, cluster, text: `What is the value of item ${i}?` })),
    cells: rows.map(([, c, s]) => [
      { score: c, costUsd: new Decimal('0.001') },
      { score: s, costUsd: new Decimal('0.01') },
    ]),
  };
}

/** Protocol deps over the runtime's router with a v1 store; `stores` collects every store opened. */
function deps(m: ReturnType<typeof matrix>, stores: PatternStore[] = []): MatrixProtocolDeps {
  const logger = createMemoryLogger();
  const clock = createVirtualClock(1_700_000_000_000_000);
  const bus = createEventBus({ mode: 'strict', logger, clock });
  const table = outcomeTable(m);
  return {
    tasks: m.tasks,
    table,
    costWeights: [0],
    openStore: (path) => {
      const s = openPatternStore(path, { logger, clock });
      stores.push(s);
      return s;
    },
    routerFor: (store) => createMatrixRouter({ models: table.models, defaultModel: 'cheap', routing: defaultRoutingConfig(), store, bus, workspacesDir: '/nonexistent/metis-matrix-test', pricingVersion: 'test' }),
    drain: () => bus.drain(),
  };
}

describe('cross-fit: no task\'s own outcome reaches its own routing', () => {
  // Task 0 alone in fold 0: cheap fails it, strong solves it. Fold 1: ten tasks of the same cluster on
  // which both models solve 5 — a tie, so slot 4 holds back and the default (cheap) routes. Were task
  // 0's own outcomes in its store, strong would lead 6 to 5 and slot 4 would choose it.
  const rows: [string, number, number][] = [['k1', 0, 1], ...Array.from({ length: 10 }, (_, i): [string, number, number] => ['k1', i < 5 ? 1 : 0, i < 5 ? 1 : 0])];
  const folds = [0, ...Array.from({ length: 10 }, () => 1)];

  it('in sample, the store holding task 0\'s outcome routes it to the strong model', async () => {
    const picks = await runInSample(deps(matrix(rows)), 'known');
    expect(picks[0]![0]).toBe(STRONG);
  });

  it('cross-fitted, its fold\'s store never saw it, and the tie routes it to the default', async () => {
    const picks = await runCrossFit(deps(matrix(rows)), folds, 'known');
    expect(picks[0]![0]).toBe(CHEAP);
    // Fold 1's store holds task 0 only: one sample per model, below min_sample_size, so the default routes.
    expect(picks[0]!.slice(1).every((p) => p === CHEAP)).toBe(true);
  });

  it('the new-workspace setting seeds and routes without the cluster as a key', async () => {
    const two: [string, number, number][] = [...Array.from({ length: 8 }, (): [string, number, number] => ['a', 0, 1]), ...Array.from({ length: 8 }, (): [string, number, number] => ['b', 0, 1])];
    const picks = await runCrossFit(deps(matrix(two)), assignFolds(two.map((r) => r[0]), 2, 'clusters', 1), 'new');
    // Cluster b's store learnt from a only (strong solves everything there), and a's from b.
    expect(picks[0]!.every((p) => p === STRONG)).toBe(true);
  });
});

describe('online: the router learns only the outcome of the model it chose', () => {
  // Cheap fails every task and strong solves every one. Starting empty, the default (cheap) routes the
  // first task; the store learns cheap's failure only, so its cluster never holds strong and slot 4 can
  // only ever answer cheap. Had it also learnt strong's outcomes it would switch (the in-sample control).
  const rows = Array.from({ length: 12 }, (): [string, number, number] => ['k1', 0, 1]);

  it('every task stays on the model it chose, and the store holds exactly those outcomes', async () => {
    const stores: PatternStore[] = [];
    const d = deps(matrix(rows), stores);
    const outcomes: { model: string; n: number }[][] = [];
    const routerFor = d.routerFor;
    d.routerFor = (store) => {
      const r = routerFor(store);
      return {
        ...r,
        route: (...a) => {
          outcomes.push(store.outcomes().map((o) => ({ model: o.primary_model, n: o.sample_size })));
          return r.route(...a);
        },
      };
    };
    const order = rows.map((_, t) => t).reverse();
    const picks = await runOnline(d, order, 'known');
    expect(picks[0]!.every((p) => p === CHEAP)).toBe(true);
    // Before the k-th routed task the store holds k−1 samples, all of the chosen (cheap) model.
    outcomes.forEach((o, k) => {
      expect(o.every((x) => x.model === 'cheap')).toBe(true);
      expect(o.reduce((s, x) => s + x.n, 0)).toBe(k);
    });
    expect(stores).toHaveLength(1);
  });

  it('control: a store that knew both models\' outcomes would route to strong', async () => {
    const picks = await runInSample(deps(matrix(rows)), 'known');
    expect(picks[0]!.every((p) => p === STRONG)).toBe(true);
  });
});

describe('fold assignment', () => {
  const clusters = [...Array.from({ length: 7 }, () => 'a'), ...Array.from({ length: 5 }, () => 'b'), ...Array.from({ length: 3 }, () => 'c')];

  it('tasks: every cluster is spread over the folds (sizes differ by at most one), the same for the same seed', () => {
    const f = assignFolds(clusters, 3, 'tasks', 7);
    for (const c of ['a', 'b', 'c']) {
      const counts = [0, 1, 2].map((k) => f.filter((x, t) => x === k && clusters[t] === c).length);
      expect(Math.max(...counts) - Math.min(...counts)).toBeLessThanOrEqual(1);
    }
    expect(assignFolds(clusters, 3, 'tasks', 7)).toEqual(f);
  });

  it('clusters: no cluster is split over two folds', () => {
    const f = assignFolds(clusters, 3, 'clusters', 7);
    for (const c of ['a', 'b', 'c']) expect(new Set(f.filter((_, t) => clusters[t] === c)).size).toBe(1);
    expect(new Set(f).size).toBe(3);
  });

  it('refuses fewer clusters than folds, and a fold count below 2', () => {
    expect(() => assignFolds(clusters, 4, 'clusters', 0)).toThrow(/at least 4 clusters .* has 3/);
    expect(() => assignFolds(clusters, 1, 'tasks', 0)).toThrow(/--folds must be an integer >= 2/);
  });
});
