import type { Clock } from '../../runtime/core/clock.ts';
import { openSqliteForReading } from '../../runtime/core/sqlite-reader.ts';
import type { Logger } from '../../runtime/core/logger.ts';
import type { EventBus } from '../../runtime/events/event.ts';
import {
  createEmbeddingProvider,
  EmbeddingProviderError,
  openPatternStore,
  type EmbeddingProvider,
  type PatternStore,
  type PatternStoreV2,
} from '../../runtime/patterns/index.ts';
import type { RoutingConfig } from '../../runtime/routing/index.ts';
import { SetupError } from '../errors.ts';

/** Which pattern store a run uses (pattern-store.md §16.6), as recorded in its provenance. */
export interface PatternStoreChoice {
  fingerprint_version: 'v1' | 'v2';
  embedding_provider: string | null;
  embedding_alpha: number | null;
  cache_max_rows: number;
  cache_max_age_days: number;
}

/** A v1 store's choice: its fingerprints are structural, so it has no embedder and no embedding cache to size. */
export interface V1StoreChoice {
  fingerprint_version: 'v1';
}

/** The offline default embedder: no key, no network, no weights. */
export const DEFAULT_EMBEDDING_PROVIDER = 'local:hashing-384';

/**
 * `--fingerprint-version` / `--embedding-provider` over the run's routing.yaml `pattern` section.
 * An embedding provider alone implies v2; v2 with none uses the offline default.
 */
export function choosePatternStore(global: RoutingConfig, flags: { fingerprintVersion?: 'v1' | 'v2' | null; embeddingProvider?: string | null }): PatternStoreChoice {
  const p = global.pattern;
  const version = flags.fingerprintVersion ?? (flags.embeddingProvider ? 'v2' : p.fingerprint_version);
  if (version === 'v1' && flags.embeddingProvider) throw new SetupError('--embedding-provider needs --fingerprint-version v2 (v1 fingerprints are structural only)');
  const v2 = version === 'v2';
  return {
    fingerprint_version: version,
    embedding_provider: v2 ? (flags.embeddingProvider ?? p.embedding_provider ?? DEFAULT_EMBEDDING_PROVIDER) : null,
    embedding_alpha: v2 ? p.embedding_alpha : null,
    cache_max_rows: p.embedding_cache_max_rows,
    cache_max_age_days: p.embedding_cache_max_age_days,
  };
}

/** What opening a run's store needs beyond the choice. */
export interface OpenRunStoreDeps {
  logger: Logger;
  clock: Clock;
  bus?: EventBus | null;
  env: Readonly<Record<string, string | undefined>>;
  /**
   * False for `analyze --skip-execute`: the store is only read, so a remote embedder's key is not
   * needed; its stored vectors are compared as they are.
   */
  canEmbed: boolean;
}

/** Opens the run's pattern store as chosen; a provider that cannot be built is a setup error naming the fix. */
export function openRunPatternStore(path: string, choice: PatternStoreChoice | V1StoreChoice, deps: OpenRunStoreDeps): PatternStore | PatternStoreV2 {
  const base = { logger: deps.logger, clock: deps.clock, bus: deps.bus ?? null };
  if (choice.fingerprint_version === 'v1') return openPatternStore(path, base);
  const id = choice.embedding_provider ?? DEFAULT_EMBEDDING_PROVIDER;
  let provider: EmbeddingProvider;
  try {
    provider = createEmbeddingProvider(id, { env: deps.env });
  } catch (e) {
    if (!(e instanceof EmbeddingProviderError)) throw e;
    if (deps.canEmbed) throw new SetupError(`--embedding-provider ${id}: ${e.message}`);
    provider = readOnlyProvider(path, id);
  }
  const embedding = { ...(choice.embedding_alpha !== null ? { alpha: choice.embedding_alpha } : {}), cache_max_rows: choice.cache_max_rows, cache_max_age_days: choice.cache_max_age_days };
  return openPatternStore(path, { ...base, fingerprintVersion: 'v2', embeddingProvider: provider, embedding });
}

/** A stand-in that reads `id`'s stored vectors and refuses to embed (used when the real one needs a key). */
function readOnlyProvider(path: string, id: string): EmbeddingProvider {
  const db = openSqliteForReading(path);
  try {
    const row = db.prepare('SELECT embedding_dim AS dim FROM fingerprints WHERE embedding_provider = ? AND embedding_dim IS NOT NULL LIMIT 1').get(id) as { dim: number } | undefined;
    return {
      provider_id: id,
      dim: row?.dim ?? 0,
      max_input_tokens: 0,
      embed: () => Promise.reject(new EmbeddingProviderError(id, 'read-only: this store is being analyzed, not recorded to')),
      close: () => Promise.resolve(),
    };
  } finally {
    db.close();
  }
}
