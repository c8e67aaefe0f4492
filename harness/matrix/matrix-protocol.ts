import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PatternStore } from '../../runtime/patterns/index.ts';
import { assignFolds, type FoldSetting } from './matrix-folds.ts';
import type { MatrixRouter, MatrixTurnTask, WorkspaceMode } from './matrix-router.ts';
import type { OutcomeTable } from './outcome-table.ts';

/**
 * The matrix protocol (issue 20): a recorded-outcome matrix replayed through the runtime's router.
 * Seeding a store with every model's recorded outcome plays A3's forced passes; routing plays Pass C.
 * - in sample: one store holds every outcome, then routes every task (its own outcome included);
 * - cross-fit: per fold a FRESH store is seeded with the other folds' outcomes only, then routes the
 *   fold, so no task's own outcome ever reaches its own routing;
 * - online: tasks arrive in a seeded order and the store learns only the outcome of the model the
 *   router chose, as it would in production.
 * Routing writes nothing to the store, so one seeded store routes the fold at every cost_weight.
 */

/** What a protocol run needs. */
export interface MatrixProtocolDeps {
  /** The tasks, in table order. */
  tasks: readonly MatrixTurnTask[];
  table: OutcomeTable;
  /** Recorded latency per task and pool model, when the matrix has it. */
  latencyMs?: (task: number, model: number) => number | undefined;
  /** The router knob's sweep: slot 4's cost_weight values, one operating point each. */
  costWeights: readonly number[];
  /** Opens a fresh, empty pattern store at `path` (v1 or v2, as the run chose). */
  openStore(path: string): PatternStore;
  /** The runtime's router over `store`; `defaultModel` (a pool index, when given) is slot 7's model when slot 4 abstains. */
  routerFor(store: PatternStore, defaultModel?: number): MatrixRouter;
  /** Slot 7's model for a store seeded with the tasks `train`: the training data's best fixed choice at the target (absent: routerFor's own default). */
  defaultFor?(train: readonly number[]): number;
  /** Lets the event bus deliver what routing emitted (route.decided per task); called every 1,000 routed tasks. */
  drain?(): Promise<void>;
  /** Where the temporary per-fold stores live (default: /dev/shm when present, else the OS temp dir). */
  tmpDir?: string;
  /** Called after each store is seeded, and after each online store has learnt every task (for the caps figure). */
  onSeeded?(info: { fold: number; outcomes: number; fingerprints: number }): void;
  /**
   * Called as routing decisions are made (`n` of them since the last call): the progress meter's count, and
   * where the run yields to the event loop so a Ctrl-C or SIGTERM is heard (it may reject to stop the run).
   * `n` is 0 for a decision redone after it was counted (a shared online run dropped at a draw).
   */
  onRouted?(n: number): void | Promise<void>;
}

/** Picks per operating point: picks[i][t] is the pool index chosen for task t at costWeights[i]. */
export type SweepPicks = number[][];

const outcome = (d: MatrixProtocolDeps, t: number, m: number) => ({ score: d.table.score[t]![m]!, costUsd: d.table.cost[t]![m]!, latencyMs: d.latencyMs?.(t, m) });

// The per-fold stores are scratch: on tmpfs their writes never wait for a disk.
const defaultTmp = (): string => (existsSync('/dev/shm') ? '/dev/shm' : tmpdir());

/** Runs `body` with a fresh store in a temporary directory removed afterwards. */
async function withStore<T>(d: MatrixProtocolDeps, name: string, defaultModel: number | undefined, body: (store: PatternStore, router: MatrixRouter) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(d.tmpDir ?? defaultTmp(), 'metis-matrix-'));
  const store = d.openStore(join(dir, `${name}.db`));
  try {
    return await body(store, d.routerFor(store, defaultModel));
  } finally {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Seeds `router`'s store with every pool model's outcome on each task of `train`. */
async function seed(d: MatrixProtocolDeps, router: MatrixRouter, train: readonly number[], mode: WorkspaceMode, tag: string): Promise<void> {
  const k = d.table.models.length;
  for (const t of train)
    for (let m = 0; m < k; m++) {
      // A v1 store learns synchronously: no promise, no microtask per seeded outcome.
      const learning = router.learn(d.tasks[t]!, mode, `seed:${tag}:${t}:${m}`, m, outcome(d, t, m));
      if (learning) await learning;
    }
}

/** Routes each task of `test` at every cost_weight into `picks`. */
async function routeAll(d: MatrixProtocolDeps, router: MatrixRouter, test: readonly number[], mode: WorkspaceMode, tag: string, picks: SweepPicks): Promise<void> {
  if (test.length === 0) return;
  for (const t of test) {
    const warming = router.warm(d.tasks[t]!);
    if (warming) await warming;
  }
  // Evidence then score: each task's features and neighbours once, scored at every cost_weight. The sweep
  // still runs weight by weight, so every draw a router makes comes in the order it always did.
  const prepared = test.map((t) => router.prepare?.(d.tasks[t]!, mode) ?? null);
  let routed = 0;
  for (let i = 0; i < d.costWeights.length; i++)
    for (let x = 0; x < test.length; x++) {
      const t = test[x]!;
      const turnId = `route:${tag}:${i}:${t}`;
      const p = prepared[x];
      picks[i]![t] = p ? p.route(turnId, d.costWeights[i]!) : router.route(d.tasks[t]!, mode, turnId, d.costWeights[i]!);
      if (++routed % 1000 === 0) {
        await d.drain?.();
        await d.onRouted?.(1000);
      }
    }
  await d.drain?.();
  await d.onRouted?.(routed % 1000);
}

const emptyPicks = (d: MatrixProtocolDeps): SweepPicks => d.costWeights.map(() => new Array<number>(d.tasks.length).fill(-1));

/** In sample: one store seeded with every task's outcomes routes every task. */
export async function runInSample(d: MatrixProtocolDeps, mode: WorkspaceMode): Promise<SweepPicks> {
  const picks = emptyPicks(d);
  const all = d.tasks.map((_, t) => t);
  await withStore(d, 'in-sample', d.defaultFor?.(all), async (store, router) => {
    await store.batch(() => seed(d, router, all, mode, 'all'));
    const size = store.size();
    d.onSeeded?.({ fold: -1, outcomes: size.outcomes, fingerprints: size.fingerprints });
    await routeAll(d, router, all, mode, 'in', picks);
  });
  return picks;
}

/** How a cross-fit validates its knob inside each training fold: `k` inner folds dealt as `setting` with `seed`. */
export interface InnerFolds {
  k: number;
  setting: FoldSetting;
  seed: number;
}

/** A cross-fit's picks: the outer sweep, and per outer fold the inner validation of every training task (nested[f][i][t], −1 off the training set). */
export interface CrossFitPicks {
  picks: SweepPicks;
  nested: SweepPicks[] | null;
}

/** Seeds a fresh store with `train` and routes `test` at every cost_weight into `picks`. */
async function foldRun(d: MatrixProtocolDeps, train: readonly number[], test: readonly number[], mode: WorkspaceMode, tag: string, picks: SweepPicks, report: number | null): Promise<void> {
  await withStore(d, tag, d.defaultFor?.(train), async (store, router) => {
    // One write transaction per fold's seeding: the same rows, committed once instead of per record.
    await store.batch(() => seed(d, router, train, mode, tag));
    if (report !== null) {
      const size = store.size();
      d.onSeeded?.({ fold: report, outcomes: size.outcomes, fingerprints: size.fingerprints });
    }
    await routeAll(d, router, test, mode, tag, picks);
  });
}

/**
 * Cross-fit: per fold, a fresh store seeded with the other folds' outcomes routes the fold. With `inner`,
 * each training set is cross-fit again (nested): inner stores seeded with part of the training set route
 * the rest of it, so every training task gets a validated pick at every cost_weight from a store that
 * never held it, and the outer fold's task outcomes reach no inner store.
 */
export async function runCrossFit(d: MatrixProtocolDeps, folds: readonly number[], mode: WorkspaceMode): Promise<SweepPicks> {
  return (await runNestedCrossFit(d, folds, mode, null)).picks;
}

/** runCrossFit, plus the inner validation of every training fold when `inner` is given. */
export async function runNestedCrossFit(d: MatrixProtocolDeps, folds: readonly number[], mode: WorkspaceMode, inner: InnerFolds | null): Promise<CrossFitPicks> {
  if (folds.length !== d.tasks.length) throw new RangeError(`folds has ${folds.length} entries for ${d.tasks.length} tasks`);
  const picks = emptyPicks(d);
  const k = Math.max(...folds) + 1;
  const nested: SweepPicks[] | null = inner ? [] : null;
  for (let f = 0; f < k; f++) {
    const test = folds.flatMap((x, t) => (x === f ? [t] : []));
    const train = folds.flatMap((x, t) => (x === f ? [] : [t]));
    if (nested) nested.push(emptyPicks(d));
    if (test.length === 0) continue;
    await foldRun(d, train, test, mode, `f${f}`, picks, f);
    if (!inner || !nested) continue;
    const innerFolds = assignFolds(
      train.map((t) => d.tasks[t]!.cluster),
      inner.k,
      inner.setting,
      inner.seed + 1000 * (f + 1),
    );
    for (let j = 0; j < inner.k; j++) {
      const iTest = train.filter((_, x) => innerFolds[x] === j);
      const iTrain = train.filter((_, x) => innerFolds[x] !== j);
      if (iTest.length) await foldRun(d, iTrain, iTest, mode, `f${f}i${j}`, nested[f]!, null);
    }
  }
  return { picks, nested };
}

/**
 * Online: for each cost_weight a fresh, empty store; tasks in `order`; each routed, then only the chosen
 * model's outcome is learned. The weights whose stores would hold the same rows share one store (see
 * onlineTogether); when a router draws (pattern.exploration), each weight runs apart, as it always did.
 */
export async function runOnline(d: MatrixProtocolDeps, order: readonly number[], mode: WorkspaceMode): Promise<SweepPicks> {
  const picks = emptyPicks(d);
  const held: ({ outcomes: number; fingerprints: number } | null)[] = d.costWeights.map(() => null);
  const told = { routed: 0 };
  // Dropped at a draw: the decisions onRouted already heard are not told again, so the meter never passes its total.
  if (!(await onlineTogether(d, order, mode, d.costWeights.map((_, i) => i), picks, held, 0, told))) return runOnlineApart(d, order, mode, told.routed);
  // What each weight's store holds once every task has been learnt (the caps figure of the online setting).
  held.forEach((size, i) => d.onSeeded?.({ fold: i, outcomes: size!.outcomes, fingerprints: size!.fingerprints }));
  return picks;
}

/**
 * Online at several cost weights over ONE store, while they agree. Weights that have chosen the same model
 * for every task so far have learnt the same outcomes, so their stores would hold the same rows (ids and
 * times aside, in the same order): one store learns each task once, and the task's evidence is gathered
 * once and scored at each weight (MatrixRouter.prepare). When a task splits the weights by their choice,
 * the others continue in a store of their own, replayed from the first task (its routes give the same
 * picks up to the split, as they did here), so each group's store always holds what its weights' own
 * stores would. A router that draws (exploration) would draw for every weight from one sequence, where each
 * weight's own router draws from its own: false then, and nothing of this run is kept.
 * `counted`: tasks before this index were counted by onRouted already (a replay's prefix); `told.routed` sums
 * the decisions onRouted has heard.
 */
async function onlineTogether(
  d: MatrixProtocolDeps,
  order: readonly number[],
  mode: WorkspaceMode,
  weights: readonly number[],
  picks: SweepPicks,
  held: ({ outcomes: number; fingerprints: number } | null)[],
  counted: number,
  told: { routed: number },
): Promise<boolean> {
  return withStore(d, `online-${weights[0]}`, undefined, async (store, router) => {
    if (!router.prepare || !router.draws) return false;
    let active = weights;
    for (let x = 0; x < order.length; x++) {
      const t = order[x]!;
      const task = d.tasks[t]!;
      const warming = router.warm(task);
      if (warming) await warming;
      const prepared = router.prepare(task, mode);
      const chosen = active.map((i) => prepared.route(`online:${i}:${t}`, d.costWeights[i]!));
      if (router.draws() > 0) return false;
      active.forEach((i, j) => (picks[i]![t] = chosen[j]!));
      if (t % 1000 === 0) await d.drain?.();
      const m = chosen[0]!;
      for (const other of new Set(chosen)) {
        if (other === m) continue;
        if (!(await onlineTogether(d, order, mode, active.filter((_, j) => chosen[j] === other), picks, held, Math.max(counted, x + 1), told))) return false;
      }
      const routed = active.length;
      active = active.filter((_, j) => chosen[j] === m);
      const learning = router.learn(task, mode, `online-learn:${active[0]}:${t}`, m, outcome(d, t, m));
      if (learning) await learning;
      if (x >= counted) {
        told.routed += routed;
        const looking = d.onRouted?.(routed);
        if (looking) await looking;
      }
    }
    const size = store.size();
    for (const i of active) held[i] = { outcomes: size.outcomes, fingerprints: size.fingerprints };
    return true;
  });
}

/**
 * Online with a store of its own per cost_weight: every task routed and learnt once per weight. The first
 * `told` decisions were heard by onRouted already (a shared run dropped at a draw) and are not told again.
 */
async function runOnlineApart(d: MatrixProtocolDeps, order: readonly number[], mode: WorkspaceMode, told = 0): Promise<SweepPicks> {
  const picks = emptyPicks(d);
  let untold = told;
  for (let i = 0; i < d.costWeights.length; i++) {
    // An online store starts empty: no training data to choose a fixed model from, so routerFor's default applies.
    await withStore(d, `online-${i}`, undefined, async (store, router) => {
      for (const t of order) {
        const task = d.tasks[t]!;
        const warming = router.warm(task);
        if (warming) await warming;
        const m = router.route(task, mode, `online:${i}:${t}`, d.costWeights[i]!);
        picks[i]![t] = m;
        if (t % 1000 === 0) await d.drain?.();
        const learning = router.learn(task, mode, `online-learn:${i}:${t}`, m, outcome(d, t, m));
        if (learning) await learning;
        // A decision told already is redone as 0: no count, still a place to hear a Ctrl-C.
        const fresh = untold > 0 ? 0 : 1;
        if (untold > 0) untold--;
        const looking = d.onRouted?.(fresh);
        if (looking) await looking;
      }
      // What the store holds once every task has been learnt (the caps figure of the online setting).
      const size = store.size();
      d.onSeeded?.({ fold: i, outcomes: size.outcomes, fingerprints: size.fingerprints });
    });
  }
  return picks;
}
