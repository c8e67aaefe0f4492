import { dirname, join, resolve } from 'node:path';
import { createSystemClock } from '../../runtime/core/clock.ts';
import { createStderrLogger } from '../../runtime/core/logger.ts';
import { createEventBus } from '../../runtime/events/bus.ts';
import { createEmbeddingProvider, EmbeddingProviderError, openMemoryPatternStore, openPatternStore, type EmbeddingProvider, type PatternStore } from '../../runtime/patterns/index.ts';
import { defaultRoutingConfig, loadGlobalRoutingConfig, type RoutingConfig } from '../../runtime/routing/index.ts';
import { SetupError } from '../errors.ts';
import { choosePatternStore, DEFAULT_EMBEDDING_PROVIDER, type PatternStoreChoice } from '../runs/run-pattern-store.ts';
import { seededRandom } from '../../runtime/core/seeded-random.ts';
import { assignFolds, shuffled, type FoldSetting } from './matrix-folds.ts';
import { runInSample, runNestedCrossFit, runOnline, type MatrixProtocolDeps } from './matrix-protocol.ts';
import type { SettingName, SettingRun } from './matrix-report.ts';
import { createMatrixRouter, type MatrixFeatureCache } from './matrix-router.ts';
import type { OutcomeMatrix } from './outcome-matrix.ts';
import { matrixBaselines } from './operating-point.ts';
import type { OutcomeTable } from './outcome-table.ts';
import { bestFixedChoice, DEFAULT_TARGET, singlePoints, subTable, type RoutingTarget } from './routing-target.ts';

/** The router's knob swept by default: slot 4's cost_weight, from quality only to cost-heavy. */
export const DEFAULT_COST_WEIGHTS: readonly number[] = [0, 0.02, 0.05, 0.08, 0.1, 0.15, 0.2, 0.3, 0.5];

/** Which of a matrix's clusters a run uses (see matrix-split.ts). */
export type MatrixSplit = 'dev' | 'confirm' | 'all';

/** Inner folds of the nested cross-fit that chooses the knob inside each training fold. */
export const INNER_FOLDS = 3;

/** Every setting, in the order a run plays them. */
export const ALL_SETTINGS: readonly SettingName[] = ['in_sample', 'unseen_tasks', 'new_workspace', 'online'];

/** Options of a matrix run (`bench run --workload <matrix>`). */
export interface MatrixRunOptions {
  workloadDir: string;
  /** --models: the candidate pool (default every model of the matrix). */
  models: readonly string[] | null;
  costWeights: readonly number[];
  folds: number;
  seed: number;
  settings: readonly SettingName[];
  /** --target: what the chosen operating point must meet (default quality=2). */
  target?: RoutingTarget;
  /** --split: the matrix's dev or confirm clusters, or all of them (default all). */
  split?: MatrixSplit;
  fingerprintVersion?: 'v1' | 'v2' | null;
  embeddingProvider?: string | null;
  routingConfigPath?: string | null;
  dbPath: string | null;
  jsonPath: string | null;
}

/** An embedder that embeds each distinct text once per run, so the fresh store of every fold does not embed it again. */
export function memoizedProvider(p: EmbeddingProvider): EmbeddingProvider & { embedded(): number } {
  const memo = new Map<string, Float32Array>();
  let embedded = 0;
  return {
    provider_id: p.provider_id,
    dim: p.dim,
    max_input_tokens: p.max_input_tokens,
    async embed(texts) {
      // One text already embedded (a fold's store asks per task): its vector, without the batch's set and maps.
      if (texts.length === 1) {
        const v = memo.get(texts[0]!);
        if (v) return [v];
      }
      const missing = [...new Set(texts.filter((t) => !memo.has(t)))];
      if (missing.length) {
        const vs = await p.embed(missing);
        missing.forEach((t, i) => memo.set(t, vs[i]!));
        embedded += missing.length;
      }
      return texts.map((t) => memo.get(t)!);
    },
    close: () => p.close(),
    embedded: () => embedded,
  };
}

/** What the protocol needs beyond the matrix: the routing config, the store kind and its embedder. */
export interface MatrixRouting {
  routing: RoutingConfig;
  choice: PatternStoreChoice;
  provider: (EmbeddingProvider & { embedded(): number }) | null;
}

/** Resolves routing.yaml (--routing-config) and the store kind (--fingerprint-version / --embedding-provider). */
export function matrixRouting(o: Pick<MatrixRunOptions, 'fingerprintVersion' | 'embeddingProvider' | 'routingConfigPath'>, env: Readonly<Record<string, string | undefined>>, cwd: string): MatrixRouting {
  const routing = o.routingConfigPath ? loadGlobalRoutingConfig(resolve(cwd, o.routingConfigPath)) : defaultRoutingConfig();
  const choice = choosePatternStore(routing, { fingerprintVersion: o.fingerprintVersion ?? null, embeddingProvider: o.embeddingProvider ?? null });
  if (choice.fingerprint_version === 'v1') return { routing, choice, provider: null };
  const id = choice.embedding_provider ?? DEFAULT_EMBEDDING_PROVIDER;
  try {
    return { routing, choice, provider: memoizedProvider(createEmbeddingProvider(id, { env })) };
  } catch (e) {
    if (e instanceof EmbeddingProviderError) throw new SetupError(`--embedding-provider ${id}: ${e.message}`);
    throw e;
  }
}

/** Protocol deps for `table` over the runtime's router with a fresh store of the chosen kind per call of openStore. */
export function protocolDeps(
  matrix: Pick<OutcomeMatrix, 'tasks' | 'cells' | 'models' | 'pricingVersion'>,
  table: OutcomeTable,
  r: MatrixRouting,
  costWeights: readonly number[],
  seed = 0,
  target: RoutingTarget = DEFAULT_TARGET,
  /** Where the per-fold stores live: memory (the default), or SQLite files at the paths given (the reference the tests compare it with). */
  stores: 'memory' | 'sqlite' = 'memory',
  /** Where each task's features are kept: one cache for every router of the run (the default), or each router its own (the reference the tests compare it with). */
  featureCache: 'run' | 'router' = 'run',
): MatrixProtocolDeps {
  const logger = createStderrLogger('error');
  const clock = createSystemClock();
  const bus = createEventBus({ mode: 'lenient', logger, clock });
  const b = matrixBaselines(table);
  const col = table.models.map((id) => matrix.models.findIndex((m) => m.id === id));
  // The per-fold stores are scratch, filled and dropped within the run: in memory, answering what a fresh
  // SQLite file would (memory-pattern-store.test.ts), without a statement per seeded outcome.
  const open = stores === 'memory' ? openMemoryPatternStore : openPatternStore;
  // Every fold's router seeds the same tasks: their features are computed once per run.
  const features: MatrixFeatureCache | undefined = featureCache === 'run' ? new WeakMap() : undefined;
  const openStore = (path: string): PatternStore =>
    r.provider
      ? open(path, {
          logger,
          clock,
          fingerprintVersion: 'v2',
          embeddingProvider: r.provider,
          embedding: { ...(r.choice.embedding_alpha !== null ? { alpha: r.choice.embedding_alpha } : {}), cache_max_rows: r.choice.cache_max_rows, cache_max_age_days: r.choice.cache_max_age_days },
        })
      : open(path, { logger, clock });
  return {
    tasks: matrix.tasks,
    table,
    latencyMs: (t, m) => matrix.cells[t]![col[m]!]!.latencyMs,
    costWeights,
    openStore,
    // Slot 7 when slot 4 abstains: the seeding data's best fixed choice at the target, not the pool's cheapest.
    defaultFor: (train) => bestFixedChoice(singlePoints(subTable(table, train)), target),
    routerFor: (store, defaultModel) =>
      createMatrixRouter({
        models: table.models,
        defaultModel: table.models[defaultModel ?? b.weak]!,
        routing: r.routing,
        store,
        bus,
        workspacesDir: join(dirname(resolve('.')), '.metis-matrix-workspaces'),
        pricingVersion: matrix.pricingVersion ?? 'recorded',
        // Each store's router draws its own exploration sequence from the run's seed, so a run replays.
        random: seededRandom(seed),
        ...(features ? { features } : {}),
      }),
    drain: () => bus.drain(),
  };
}

/** Plays one setting and what its stores held. */
export async function playSetting(setting: SettingName, d: MatrixProtocolDeps, folds_: number, seed: number): Promise<SettingRun> {
  const held = { outcomes_max: 0, fingerprints_max: 0, stores: 0 };
  const deps: MatrixProtocolDeps = {
    ...d,
    onSeeded: (i) => {
      held.outcomes_max = Math.max(held.outcomes_max, i.outcomes);
      held.fingerprints_max = Math.max(held.fingerprints_max, i.fingerprints);
      held.stores += 1;
    },
  };
  const clusters = d.tasks.map((t) => t.cluster);
  if (setting === 'in_sample') return { setting, picks: await runInSample(deps, 'known'), store: held };
  if (setting === 'online') {
    const order = shuffled(
      d.tasks.map((_, t) => t),
      seededRandom(seed),
    );
    return { setting, picks: await runOnline(deps, order, 'known'), store: held, order };
  }
  const how: FoldSetting = setting === 'unseen_tasks' ? 'tasks' : 'clusters';
  const folds = assignFolds(clusters, folds_, how, seed);
  // Leaving clusters out inside a training fold needs one cluster per inner fold; with fewer there is no nested choice.
  const trainClusters = Math.min(...Array.from({ length: folds_ }, (_, f) => new Set(clusters.filter((_, t) => folds[t] !== f)).size));
  const inner = how === 'tasks' || trainClusters >= INNER_FOLDS ? { k: INNER_FOLDS, setting: how, seed } : null;
  const run = await runNestedCrossFit(deps, folds, how === 'tasks' ? 'known' : 'new', inner);
  return { setting, picks: run.picks, store: held, folds, ...(run.nested ? { nested: run.nested } : {}) };
}
