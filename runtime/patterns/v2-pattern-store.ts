// Pattern store v2 (pattern-store.md §16): hybrid fingerprints, the embedding cache and blended K-NN,
// layered over the v1 store, which keeps owning outcomes, scores and eviction.
import type Database from 'better-sqlite3';
import { DEFAULT_EMBEDDING_CACHE_LIMITS, type EmbeddingCache, type EmbeddingCacheLimits, type EmbeddingCacheStats } from './embeddings/embedding-cache.ts';
import type { EmbeddingProvider } from './embeddings/embedding-provider.ts';
import { scoreEvidence, type ModelPriors } from './cluster-scoring.ts';
import type { EventContext, EvidenceOptions, KNearestOptions, NeighborMatch, PatternRecommendation, PatternStore, RecommendEvidence, RecommendOptions, RecordInput, RecordResult } from './pattern-store.ts';
import { EMBEDDING_CACHE_SQL, PATTERN_SCHEMA_SQL, PATTERN_SCHEMA_VERSION_V2 } from './pattern-schema.ts';
import { blendScores, DEFAULT_EMBEDDING_ALPHA } from './similarity-v2.ts';
import { canonicalForm, type StructuralFeatures } from './structural-features.ts';

/** The v2 knobs of §16.6 (routing.yaml pattern.embedding.*). */
export interface EmbeddingConfig {
  alpha: number;
  cache_max_rows: number;
  cache_max_age_days: number;
}

/** Defaults: α 0.6, 10,000 cache rows, 90 days. */
export const DEFAULT_EMBEDDING_CONFIG: Readonly<EmbeddingConfig> = Object.freeze({
  alpha: DEFAULT_EMBEDDING_ALPHA,
  cache_max_rows: DEFAULT_EMBEDDING_CACHE_LIMITS.max_rows,
  cache_max_age_days: DEFAULT_EMBEDDING_CACHE_LIMITS.max_age_days,
});

/** The query-side embedding a v2 call may carry; absent → v1 structural scoring for that call. */
export interface EmbeddingQuery {
  embedding?: Float32Array | null;
}

/** A v2 store: the v1 surface, with optional embeddings on record / recommend / findKNearest, plus the cache paths. */
export interface PatternStoreV2 extends PatternStore {
  readonly fingerprintVersion: 'v2';
  readonly embeddingProvider: EmbeddingProvider;
  /** Recording path (§16.13): cached vector, or embeds on a miss (and caches it). Await before `record`. */
  embedForRecording(text: string): Promise<Float32Array>;
  /** Routing path (§16.13): the cached vector or null (a miss means: route this query on v1 structural). Never embeds. */
  cachedEmbedding(text: string, providerId?: string): Float32Array | null;
  /** Records as v1; with `embedding`, the fingerprint row becomes kind 'hybrid' with the vector and provider. */
  record(input: RecordInput & EmbeddingQuery, ctx: EventContext): RecordResult;
  /** §8.3 over the v2 K-cluster when `q.embedding` is given, else exactly v1. */
  recommend(features: StructuralFeatures, opts: RecommendOptions, q?: EmbeddingQuery): PatternRecommendation;
  /** recommend's evidence half (blended K-NN with `q.embedding`, else exactly v1's). */
  evidence(features: StructuralFeatures, opts: EvidenceOptions, q?: EmbeddingQuery): RecommendEvidence;
  /** Blended K-NN (§16.5) when `opts.embedding` is given, else exactly v1. */
  findKNearest(features: StructuralFeatures, k: number, opts?: KNearestOptions & EmbeddingQuery): NeighborMatch[];
  /** Stored embedding of a fingerprint (this provider's), or null for a v1 row. */
  fingerprintEmbedding(fingerprintId: string): Float32Array | null;
  /** Cache hit/miss counters and row count. */
  embeddingCacheStats(): EmbeddingCacheStats;
  /** Runs the cache eviction pass now (age, then LRU to max rows); returns rows removed. */
  evictEmbeddingCache(): number;
}

/** Upgrades the file to schema 2 (creates embedding_cache, sets schema_version "2"); touches no existing row. */
export function upgradeToV2(db: Database.Database): void {
  db.transaction(() => {
    db.exec(PATTERN_SCHEMA_SQL);
    db.exec(EMBEDDING_CACHE_SQL);
    db.prepare("INSERT INTO store_meta (key, value) VALUES ('schema_version', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value").run(String(PATTERN_SCHEMA_VERSION_V2));
    db.pragma(`user_version = ${PATTERN_SCHEMA_VERSION_V2}`);
  }).immediate();
}

/**
 * What the v2 layer reads from the structural store it wraps (internal): the store's in-memory index
 * also mirrors this provider's embeddings, slot-aligned and reloaded with it on foreign commits.
 */
export interface HybridIndex {
  /** The embedding cache kept with the store's rows (opening them if needed; SQLite: on the store's own connection). Throws when unusable. */
  embeddingCache(limits: EmbeddingCacheLimits): EmbeddingCache;
  /** The §16.5 blended K-NN over the mirror; [] when the store cannot be read. */
  kNearestBlended(features: StructuralFeatures, k: number, useWorkloadId: boolean, query: Float32Array, alpha: number): NeighborMatch[];
  embeddingOf(fingerprintId: string): Float32Array | null;
  /** The index's per-model totals (expected_gain's priors). */
  modelTotals(workloadId: string | null): ModelPriors;
  fingerprintIdBySig(sig: string): string | null;
}

/** Wraps an open structural store (whose `record` stores `embedding` when given) with the v2 layer. */
export function wrapPatternStoreV2(v1: PatternStore, hybrid: HybridIndex, provider: EmbeddingProvider, config: Partial<EmbeddingConfig> = {}): PatternStoreV2 {
  const cfg = { ...DEFAULT_EMBEDDING_CONFIG, ...config };
  blendScores(0, 0, cfg.alpha);
  const cache: EmbeddingCache = hybrid.embeddingCache({ max_rows: cfg.cache_max_rows, max_age_days: cfg.cache_max_age_days });

  // The structural store's evidence (every store openPatternStore makes has it; recommend is the fallback's scorer otherwise).
  const v1Evidence = (feat: StructuralFeatures, opts: EvidenceOptions): RecommendEvidence => {
    if (!v1.evidence) throw new Error('wrapPatternStoreV2: the structural store has no evidence()');
    return v1.evidence(feat, opts);
  };
  const store: PatternStoreV2 = {
    ...v1,
    fingerprintVersion: 'v2',
    embeddingProvider: provider,
    async embedForRecording(text) {
      const hit = cache.get(provider.provider_id, text);
      if (hit) return hit;
      const [v] = await provider.embed([text]);
      if (!v) throw new Error(`${provider.provider_id}: embed returned no vector`);
      cache.putMany(provider.provider_id, [{ text, vector: v }]);
      return v;
    },
    cachedEmbedding(text, providerId) {
      try {
        return cache.get(providerId ?? provider.provider_id, text);
      } catch {
        // Routing reads the cache on every turn; an unusable file routes on v1 structural (§9.3).
        return null;
      }
    },
    // The structural store writes the embedding in the record's own transaction (first one wins).
    record: (input, ctx) => v1.record(input, ctx),
    recommend(feat, opts, q) {
      const ev = store.evidence(feat, opts, q);
      const t0 = performance.now();
      return scoreEvidence(ev, opts, performance.now() - t0);
    },
    evidence(feat, opts, q) {
      if (!q?.embedding) return v1Evidence(feat, opts);
      const t0 = performance.now();
      try {
        // One normalisation and signature per features object (kept per frozen object: a turn's, across a sweep's folds).
        const { features: normal, sig } = canonicalForm(feat);
        const nearest = hybrid.kNearestBlended(normal, opts.k ?? 10, true, q.embedding, cfg.alpha);
        const priors = opts.scoring === 'expected_gain' ? hybrid.modelTotals(normal.workload_id) : undefined;
        const fingerprint_id = hybrid.fingerprintIdBySig(sig);
        return { nearest, priors, fingerprint_id, elapsed_ms: performance.now() - t0, failed: false };
      } catch {
        return v1Evidence(feat, opts);
      }
    },
    findKNearest(feat, k, opts) {
      if (!opts?.embedding) return v1.findKNearest(feat, k, opts);
      return hybrid.kNearestBlended(feat, k, opts.useWorkloadId ?? true, opts.embedding, cfg.alpha);
    },
    fingerprintEmbedding: (id) => hybrid.embeddingOf(id),
    embeddingCacheStats: () => cache.stats(),
    evictEmbeddingCache: () => cache.trim(),
    close: () => v1.close(),
  };
  return store;
}
