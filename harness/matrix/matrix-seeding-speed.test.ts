import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { PatternStore } from '../../runtime/patterns/index.ts';
import { assignFolds } from './matrix-folds.ts';
import { runCrossFit, runNestedCrossFit, type MatrixProtocolDeps } from './matrix-protocol.ts';
import type { MatrixRouter } from './matrix-router.ts';
import { loadOutcomeMatrix } from './outcome-matrix.ts';
import { outcomeTable } from './outcome-table.ts';
import { matrixRouting, protocolDeps } from './run-matrix.ts';

// The cross-fit's speed-ups (issue 20 goal 3) must not change a figure: one write transaction per fold's
// seeding (store.batch), each task's features and embedding computed once for all its models, and its
// features shared by every fold's router. The reference plays the same folds the slow way: every record
// committed alone, and a fresh router per record, with no features shared between routers, so nothing
// computed for one model's outcome is reused for the next.

const root = fileURLToPath(new URL('../../', import.meta.url));
const TASKS = 250;

/** The first TASKS tasks of the shipped GSM8K matrix as protocol deps over a v2 store (local:hashing-384), at three cost weights. */
async function gsm8kDeps(stores: 'memory' | 'sqlite' = 'memory', featureCache: 'run' | 'router' = 'run'): Promise<{ deps: MatrixProtocolDeps; clusters: string[]; close(): Promise<void> }> {
  const full = await loadOutcomeMatrix(join(root, 'workloads', 'routellm-gsm8k'));
  const matrix = { ...full, tasks: full.tasks.slice(0, TASKS), cells: full.cells.slice(0, TASKS) };
  const table = outcomeTable(matrix);
  const routing = matrixRouting({ embeddingProvider: 'local:hashing-384' }, {}, root);
  const deps = protocolDeps(matrix, table, routing, [0, 0.1, 0.3], 0, undefined, stores, featureCache);
  return { deps, clusters: matrix.tasks.map((t) => t.cluster), close: async () => routing.provider?.close() };
}

/** The slow path: no batch (each record its own commit) and a new router (no per-task reuse) for every record. */
function unoptimised(d: MatrixProtocolDeps): MatrixProtocolDeps {
  return {
    ...d,
    openStore: (path): PatternStore => ({ ...d.openStore(path), batch: (body) => body() }),
    routerFor: (store, defaultModel): MatrixRouter => {
      const router = d.routerFor(store, defaultModel);
      return { ...router, learn: (...args) => d.routerFor(store, defaultModel).learn(...args) };
    },
  };
}

describe('cross-fit speed-ups leave every pick unchanged (GSM8K, v2 store)', () => {
  it('unseen tasks and new workspace: the same model for every task at every cost weight as the record-by-record path', async () => {
    const { deps, clusters, close } = await gsm8kDeps();
    const reference = await gsm8kDeps('memory', 'router');
    try {
      let batched = 0;
      const counting: MatrixProtocolDeps = {
        ...deps,
        openStore: (path) => {
          const s = deps.openStore(path);
          const batch = s.batch.bind(s);
          return Object.assign(s, { batch: <T>(body: () => Promise<T>) => ((batched += 1), batch(body)) });
        },
      };
      for (const [setting, mode] of [
        ['tasks', 'known'],
        ['clusters', 'new'],
      ] as const) {
        const folds = assignFolds(clusters, 5, setting, 3);
        const fast = await runCrossFit(counting, folds, mode);
        const slow = await runCrossFit(unoptimised(reference.deps), folds, mode);
        expect(fast).toEqual(slow);
        // Not a degenerate comparison: routing sent tasks to both models somewhere on the sweep.
        expect(new Set(fast.flat()).size).toBe(2);
      }
      // Each fold's seeding ran as one batch.
      expect(batched).toBe(10);
    } finally {
      await close();
      await reference.close();
    }
  }, 120_000);

  it('in-memory fold stores route every task as SQLite files do (nested choice included)', async () => {
    const memory = await gsm8kDeps('memory');
    const sqlite = await gsm8kDeps('sqlite');
    try {
      for (const [setting, mode] of [
        ['tasks', 'known'],
        ['clusters', 'new'],
      ] as const) {
        const folds = assignFolds(memory.clusters, 5, setting, 4);
        const inner = { k: 3, setting, seed: 4 };
        const fromMemory = await runNestedCrossFit(memory.deps, folds, mode, inner);
        expect(fromMemory).toEqual(await runNestedCrossFit(sqlite.deps, folds, mode, inner));
        expect(new Set(fromMemory.picks.flat()).size).toBe(2);
      }
    } finally {
      await memory.close();
      await sqlite.close();
    }
  }, 120_000);
});
