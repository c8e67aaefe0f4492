import { Decimal } from 'decimal.js';
import { describe, expect, it } from 'vitest';
import { type PatternStore } from '../../runtime/patterns/index.ts';
import { seededRandom } from '../../runtime/core/seeded-random.ts';
import { defaultRoutingConfig, type RoutingConfig } from '../../runtime/routing/index.ts';
import { assignFolds } from './matrix-folds.ts';
import { runCrossFit, runInSample, runOnline, type MatrixProtocolDeps } from './matrix-protocol.ts';
import { matrixBaselines, operatingFigures } from './operating-point.ts';
import { outcomeTable, type MatrixLike } from './outcome-table.ts';
import { routingWith, testProtocolDeps } from './test-support/protocol-deps.ts';

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
function deps(m: ReturnType<typeof matrix>, stores: PatternStore[] = [], routing: RoutingConfig = defaultRoutingConfig(), costWeights: readonly number[] = [0]): MatrixProtocolDeps {
  return testProtocolDeps(m, { stores, routing, costWeights });
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

describe('cross-fit under expected_gain scoring: still no task\'s own outcome reaches its own routing', () => {
  // The same shape as above, at cost_weight 0.05 (the strong model, 10× dearer, wins iff its P(solve) leads
  // by more than ~0.08): in sample task 0's outcomes make strong lead 6/11 to 5/11 in its cluster and it is
  // chosen; cross-fitted, its fold's store saw the 5/10 tie only, and the cheaper model wins.
  const rows: [string, number, number][] = [['k1', 0, 1], ...Array.from({ length: 10 }, (_, i): [string, number, number] => ['k1', i < 5 ? 1 : 0, i < 5 ? 1 : 0])];
  const folds = [0, ...Array.from({ length: 10 }, () => 1)];
  const routing = routingWith({ scoring: 'expected_gain' });

  it('in sample the store holding task 0\'s outcome routes it to the strong model; cross-fitted it does not', async () => {
    expect((await runInSample(deps(matrix(rows), [], routing, [0.05]), 'known'))[0]![0]).toBe(STRONG);
    expect((await runCrossFit(deps(matrix(rows), [], routing, [0.05]), folds, 'known'))[0]![0]).toBe(CHEAP);
  });
});

describe('cluster- and cost-aware scoring beats the hull on a hand-made matrix', () => {
  // Eight workspaces of 10 tasks; in each, cheap solves 6 and strong 9 (a gain of 0.3). In four, strong
  // costs $0.003 a task (an upgrade costs $0.002); in the other four $0.03 (an upgrade costs $0.029).
  // Cheap costs $0.001 everywhere. Store-wide cost scale 0.0155: at cost_weight 0.3 an upgrade is worth it
  // iff 0.7·0.3 > 0.3·Δc/0.0155, i.e. only where it costs $0.002. Routing so, the router solves 75% at
  // $0.002 a task, where the best fixed mix solves 0.6 + 0.3·(0.001/0.0155) ≈ 61.9%. The spec's scoring
  // normalises cost within each cluster, so every cluster looks alike (a 0.3 gain against cw/(1−cw) = 0.43)
  // and it stays on the cheap model: on the hull.
  const tasks = Array.from({ length: 80 }, (_, t) => ({ cluster: `w${Math.floor(t / 10)}`, i: t % 10 }));
  const m = {
    models: [{ id: 'cheap' }, { id: 'strong' }],
    tasks: tasks.map((x, t) => ({ id: `t${t}`, cluster: x.cluster, text: `What is the value of item ${t}?` })),
    cells: tasks.map((x, t) => [
      { score: x.i < 6 ? 1 : 0, costUsd: new Decimal('0.001') },
      { score: x.i < 9 ? 1 : 0, costUsd: new Decimal(Math.floor(t / 10) < 4 ? '0.003' : '0.03') },
    ]),
  };
  const folds = assignFolds(m.tasks.map((t) => t.cluster), 5, 'tasks', 3);

  it('expected_gain, out of sample by task: above the hull with an interval that excludes 0', async () => {
    const picks = await runCrossFit(deps(m, [], routingWith({ scoring: 'expected_gain' }), [0.3]), folds, 'known');
    const f = operatingFigures(matrixBaselines(outcomeTable(m)), picks[0]!);
    expect(picks[0]!.every((p, t) => p === (t < 40 ? STRONG : CHEAP))).toBe(true);
    expect(f.hull_gap_pts.estimate!).toBeCloseTo(75 - (60 + 30 * (0.001 / 0.0155)), 6);
    expect(f.hull_gap_pts.ci_low!).toBeGreaterThan(0);
  });

  it('the spec\'s similarity_weighted scoring at the same cost_weight stays on the hull', async () => {
    const picks = await runCrossFit(deps(m, [], routingWith({ scoring: 'similarity_weighted' }), [0.3]), folds, 'known');
    const f = operatingFigures(matrixBaselines(outcomeTable(m)), picks[0]!);
    expect(f.hull_gap_pts.estimate!).toBeCloseTo(0, 9);
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
    const seen = () => outcomes.push(store().outcomes().map((o) => ({ model: o.primary_model, n: o.sample_size })));
    const store = () => stores.at(-1)!;
    d.routerFor = (s) => {
      const r = routerFor(s);
      return {
        ...r,
        route: (...a) => {
          seen();
          return r.route(...a);
        },
        prepare: (...a) => {
          seen();
          return r.prepare!(...a);
        },
      };
    };
    const order = rows.map((_, t) => t).reverse();
    const picks = await runOnline(d, order, 'known');
    expect(picks[0]!.every((p) => p === CHEAP)).toBe(true);
    expect(outcomes).toHaveLength(rows.length);
    // Before the k-th routed task the store holds k−1 samples, all of the chosen (cheap) model.
    outcomes.forEach((o, k) => {
      expect(o.every((x) => x.model === 'cheap')).toBe(true);
      expect(o.reduce((s, x) => s + x.n, 0)).toBe(k);
    });
    expect(stores).toHaveLength(1);
  });

  it('with Thompson exploration it tries the strong model, learns its value and then routes most tasks there', async () => {
    const many = Array.from({ length: 60 }, (): [string, number, number] => ['k1', 0, 1]);
    const stores: PatternStore[] = [];
    const picks = await runOnline(deps(matrix(many), stores, routingWith({ scoring: 'expected_gain', exploration: 'thompson' }), [0.05]), many.map((_, t) => t), 'known');
    expect(picks[0]!.filter((p) => p === STRONG).length).toBeGreaterThan(45);
    expect(picks[0]!.slice(-10).every((p) => p === STRONG)).toBe(true);
  });

  it('learned scoring with Thompson exploration also leaves the cheapest model: the unseen one joins at the pool prior', async () => {
    const many = Array.from({ length: 60 }, (): [string, number, number] => ['k1', 0, 1]);
    const picks = await runOnline(deps(matrix(many), [], routingWith({ scoring: 'learned', exploration: 'thompson' }), [0.05]), many.map((_, t) => t), 'known');
    expect(picks[0]!.filter((p) => p === STRONG).length).toBeGreaterThan(45);
    expect(picks[0]!.slice(-10).every((p) => p === STRONG)).toBe(true);
  });

  it('cost weights that choose alike share one store; a weight that chooses otherwise continues in a store replayed for it', async () => {
    // A stand-in for slot 4 whose choice depends on the cost weight and on what its store has learnt (strong's
    // samples count thrice): the weights split at different tasks, and after a split their stores differ, so a
    // store that learnt another weight's choices would answer differently from then on.
    const rnd = seededRandom(3);
    const rows = Array.from({ length: 40 }, (_, i): [string, number, number] => [`k${i % 3}`, rnd() < 0.5 ? 1 : 0, 1]);
    const weights = [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7];
    const run = async (together: boolean) => {
      const stores: PatternStore[] = [];
      const d = deps(matrix(rows), stores, defaultRoutingConfig(), weights);
      const routerFor = d.routerFor;
      d.routerFor = (store, def) => {
        const { draws, ...r } = routerFor(store, def);
        const choose = (cw: number) => {
          const n = store.outcomes().reduce((s, o) => s + (o.primary_model === 'strong' ? 3 : 1) * o.sample_size, 0);
          return (n + Math.round(cw * 10)) % 3 === 0 ? STRONG : CHEAP;
        };
        // Without draws() the weights run apart, each in its own store (the reference).
        return { ...r, ...(together ? { draws } : {}), route: (_t, _m, _id, cw) => choose(cw), prepare: () => ({ route: (_id, cw) => choose(cw) }) };
      };
      const held: { fold: number; outcomes: number; fingerprints: number }[] = [];
      d.onSeeded = (i) => held.push(i);
      return { picks: await runOnline(d, rows.map((_, t) => t), 'known'), stores: stores.length, held };
    };
    const apart = await run(false);
    const together = await run(true);
    expect(together.picks).toEqual(apart.picks);
    expect(together.held).toEqual(apart.held);
    // One per weight, and the shared one, dropped before its first task (these routers tell no draws).
    expect(apart.stores).toBe(weights.length + 1);
    // The weights did split (more than one store), and some still shared one.
    expect(new Set(apart.picks.map((p) => p.join())).size).toBeGreaterThan(2);
    expect(together.stores).toBeGreaterThan(1);
    expect(together.stores).toBeLessThan(weights.length);
  });

  it('the real router: shared stores answer what a store per weight answers, and a router that draws runs apart', async () => {
    const rnd = seededRandom(8);
    const rows = Array.from({ length: 50 }, (_, i): [string, number, number] => [`k${i % 4}`, rnd() < 0.6 ? 1 : 0, rnd() < 0.9 ? 1 : 0]);
    const weights = [0, 0.05, 0.3, 1];
    for (const pattern of [{}, { scoring: 'expected_gain' }, { scoring: 'learned' }, { scoring: 'expected_gain', exploration: 'thompson' }] as Partial<RoutingConfig['pattern']>[]) {
      const apartStores: PatternStore[] = [];
      const apartDeps = deps(matrix(rows), apartStores, routingWith(pattern), weights);
      const routerFor = apartDeps.routerFor;
      apartDeps.routerFor = (store, def) => {
        const { draws: _draws, ...r } = routerFor(store, def);
        return r;
      };
      const apart = await runOnline(apartDeps, rows.map((_, t) => t), 'known');
      const stores: PatternStore[] = [];
      expect(await runOnline(deps(matrix(rows), stores, routingWith(pattern), weights), rows.map((_, t) => t), 'known')).toEqual(apart);
      // No exploration: one store for every weight. Thompson: the shared store is dropped at the first draw.
      expect(stores).toHaveLength(pattern.exploration ? weights.length + 1 : 1);
    }
  });

  it('a shared run dropped at a draw after some tasks tells each decision to the progress meter once', async () => {
    // A router that starts drawing at its 11th task: the shared run is dropped there and every weight runs
    // apart from the first task; the decisions told before the drop are redone, not told again.
    const rows = Array.from({ length: 30 }, (_, i): [string, number, number] => [`k${i % 3}`, 1, 1]);
    const weights = [0, 0.3, 1];
    const d = deps(matrix(rows), [], defaultRoutingConfig(), weights);
    const routerFor = d.routerFor;
    let prepared = 0;
    d.routerFor = (store, def) => {
      const r = routerFor(store, def);
      return { ...r, prepare: (...a) => (prepared++, r.prepare!(...a)), draws: () => (prepared > 10 ? 1 : 0) };
    };
    const told: number[] = [];
    d.onRouted = (n) => void told.push(n);
    await runOnline(d, rows.map((_, t) => t), 'known');
    expect(prepared).toBe(11);
    expect(told.reduce((a, b) => a + b, 0)).toBe(weights.length * rows.length);
    // Every decision of the runs apart still reached onRouted (where a Ctrl-C is heard), the redone ones as 0.
    expect(told.filter((n) => n === 0)).toHaveLength(10 * weights.length);
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

describe('the sweep scores each task\'s evidence at every cost_weight (MatrixRouter.prepare)', () => {
  // Four clusters of varied difficulty; the strong model dearer. Texts differ in length so fingerprints differ.
  const rnd = seededRandom(11);
  const rows: [string, number, number][] = Array.from({ length: 60 }, (_, i): [string, number, number] => {
    const hard = (i % 4) / 4;
    return [`c${i % 4}`, rnd() < 0.9 - hard ? 1 : 0, rnd() < 0.95 - hard / 3 ? 1 : 0];
  });
  const plain = matrix(rows);
  const m = { ...plain, tasks: plain.tasks.map((t, i) => ({ ...t, text: `What is the value of item ${i}? ${'detail '.repeat(i % 7)}` })) };
  const weights = [0, 0.02, 0.05, 0.1, 0.2, 0.3, 0.5, 0.8, 1];
  /** The same deps with prepare removed from every router: each (task, weight) decided from scratch. */
  const withoutPrepare = (d: MatrixProtocolDeps): MatrixProtocolDeps => ({
    ...d,
    routerFor: (store, def) => {
      const { prepare: _prepare, ...rest } = d.routerFor(store, def);
      return rest;
    },
  });

  it.each([
    ['similarity_weighted', {}],
    ['expected_gain with thompson exploration', { scoring: 'expected_gain', exploration: 'thompson' }],
  ] as [string, Partial<RoutingConfig['pattern']>][])('%s: in sample and cross-fit picks are those of routing each (task, weight) afresh', async (_n, pattern) => {
    const folds = assignFolds(m.tasks.map((t) => t.cluster), 3, 'tasks', 0);
    const fresh = await runCrossFit(withoutPrepare(deps(m, [], routingWith(pattern), weights)), folds, 'known');
    const swept = await runCrossFit(deps(m, [], routingWith(pattern), weights), folds, 'known');
    expect(swept).toEqual(fresh);
    // The weights move the picks, so the comparison covers more than one answer.
    expect(new Set(fresh.map((p) => p.join())).size).toBeGreaterThan(1);
    expect(await runInSample(deps(m, [], routingWith(pattern), weights), 'known')).toEqual(await runInSample(withoutPrepare(deps(m, [], routingWith(pattern), weights)), 'known'));
  });
});
