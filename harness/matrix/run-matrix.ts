import { dirname, join, resolve } from 'node:path';
import { createSystemClock } from '../../runtime/core/clock.ts';
import { createStderrLogger } from '../../runtime/core/logger.ts';
import { createEventBus } from '../../runtime/events/bus.ts';
import { createEmbeddingProvider, EmbeddingProviderError, openPatternStore, type EmbeddingProvider, type PatternStore } from '../../runtime/patterns/index.ts';
import { defaultRoutingConfig, loadGlobalRoutingConfig, type RoutingConfig } from '../../runtime/routing/index.ts';
import { SetupError } from '../errors.ts';
import { choosePatternStore, DEFAULT_EMBEDDING_PROVIDER, type PatternStoreChoice } from '../runner/run-pattern-store.ts';
import { seededRandom } from '../../runtime/core/seeded-random.ts';
import { assignFolds, shuffled } from './matrix-folds.ts';
import { runCrossFit, runInSample, runOnline, type MatrixProtocolDeps } from './matrix-protocol.ts';
import type { SettingName, SettingRun } from './matrix-report.ts';
import { createMatrixRouter } from './matrix-router.ts';
import type { OutcomeMatrix } from './outcome-matrix.ts';
import { matrixBaselines } from './operating-point.ts';
import type { OutcomeTable } from './outcome-table.ts';

/** The router's knob swept by default: slot 4's cost_weight, from quality only to cost-heavy. */
export const DEFAULT_COST_WEIGHTS: readonly number[] = [0, 0.02, 0.05, 0.08, 0.1, 0.15, 0.2, 0.3, 0.5];

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
export function protocolDeps(matrix: Pick<OutcomeMatrix, 'tasks' | 'cells' | 'models' | 'pricingVersion'>, table: OutcomeTable, r: MatrixRouting, costWeights: readonly number[], seed = 0): MatrixProtocolDeps {
  const logger = createStderrLogger('error');
  const clock = createSystemClock();
  const bus = createEventBus({ mode: 'lenient', logger, clock });
  const b = matrixBaselines(table);
  const col = table.models.map((id) => matrix.models.findIndex((m) => m.id === id));
  const openStore = (path: string): PatternStore =>
    r.provider
      ? openPatternStore(path, {
          logger,
          clock,
          fingerprintVersion: 'v2',
          embeddingProvider: r.provider,
          embedding: { ...(r.choice.embedding_alpha !== null ? { alpha: r.choice.embedding_alpha } : {}), cache_max_rows: r.choice.cache_max_rows, cache_max_age_days: r.choice.cache_max_age_days },
        })
      : openPatternStore(path, { logger, clock });
  return {
    tasks: matrix.tasks,
    table,
    latencyMs: (t, m) => matrix.cells[t]![col[m]!]!.latencyMs,
    costWeights,
    openStore,
    routerFor: (store) =>
      createMatrixRouter({
        models: table.models,
        defaultModel: table.models[b.weak]!,
        routing: r.routing,
        store,
        bus,
        workspacesDir: join(dirname(resolve('.')), '.metis-matrix-workspaces'),
        pricingVersion: matrix.pricingVersion ?? 'recorded',
        // Each store's router draws its own exploration sequence from the run's seed, so a run replays.
        random: seededRandom(seed),
      }),
    drain: () => bus.drain(),
  };
}

/** Plays one setting and what its stores held. */
export async function playSetting(setting: SettingName, d: MatrixProtocolDeps, folds: number, seed: number): Promise<SettingRun> {
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
  const picks =
    setting === 'in_sample'
      ? await runInSample(deps, 'known')
      : setting === 'unseen_tasks'
        ? await runCrossFit(deps, assignFolds(clusters, folds, 'tasks', seed), 'known')
        : setting === 'new_workspace'
          ? await runCrossFit(deps, assignFolds(clusters, folds, 'clusters', seed), 'new')
          : await runOnline(
              deps,
              shuffled(
                d.tasks.map((_, t) => t),
                seededRandom(seed),
              ),
              'known',
            );
  return { setting, picks, store: held };
}
