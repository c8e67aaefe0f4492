// Pattern store v2 (pattern-store.md §16): hybrid fingerprints, the embedding cache and blended K-NN,
// layered over the v1 store, which keeps owning outcomes, scores and eviction.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import type { Clock } from '../core/clock.ts';
import { createEmbeddingCache, DEFAULT_EMBEDDING_CACHE_LIMITS, type EmbeddingCache, type EmbeddingCacheStats } from './embeddings/embedding-cache.ts';
import { dot as dotOf, packVector, unpackVector, type EmbeddingProvider } from './embeddings/embedding-provider.ts';
import { createVectorMatrix, type VectorMatrix } from './embeddings/vector-matrix.ts';
import { scoreCluster } from './cluster-scoring.ts';
import type { EventContext, KNearestOptions, NeighborMatch, PatternRecommendation, PatternStore, RecommendOptions, RecordInput, RecordResult } from './pattern-store.ts';
import { EMBEDDING_CACHE_SQL, PATTERN_SCHEMA_SQL, PATTERN_SCHEMA_VERSION_V2 } from './pattern-schema.ts';
import { structuralSimilarity as structuralOf } from './similarity.ts';
import { applyWorkloadPartition, blendScores, DEFAULT_EMBEDDING_ALPHA } from './similarity-v2.ts';
import { normalizeFeatures, structuralSignature, type StructuralFeatures } from './structural-features.ts';

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
  /** Blended K-NN (§16.5) when `opts.embedding` is given, else exactly v1. */
  findKNearest(features: StructuralFeatures, k: number, opts?: KNearestOptions & EmbeddingQuery): NeighborMatch[];
  /** Stored embedding of a fingerprint (this provider's), or null for a v1 row. */
  fingerprintEmbedding(fingerprintId: string): Float32Array | null;
  /** v2 cluster tightness over the stored fingerprints grouped by workload_id (partition off), as report `cluster_tightness.v2`. */
  clusterTightness(): { intra: number | null; inter: number | null };
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

/** Wraps an open v1 store at `path` with the v2 layer. */
export function wrapPatternStoreV2(v1: PatternStore, path: string, clock: Clock, provider: EmbeddingProvider, config: Partial<EmbeddingConfig> = {}): PatternStoreV2 {
  const cfg = { ...DEFAULT_EMBEDDING_CONFIG, ...config };
  blendScores(0, 0, cfg.alpha);
  mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path, { timeout: 5_000 });
  db.pragma('journal_mode = WAL');
  db.pragma('foreign_keys = ON');
  upgradeToV2(db);
  const cache: EmbeddingCache = createEmbeddingCache(db, clock, { max_rows: cfg.cache_max_rows, max_age_days: cfg.cache_max_age_days });
  const setEmbedding = db.prepare("UPDATE fingerprints SET kind = 'hybrid', embedding_blob = ?, embedding_provider = ?, embedding_dim = ? WHERE id = ? AND embedding_blob IS NULL");
  const loadEmbeddings = db.prepare<[string], { id: string; embedding_blob: Buffer; embedding_dim: number }>(
    'SELECT id, embedding_blob, embedding_dim FROM fingerprints WHERE embedding_blob IS NOT NULL AND embedding_provider = ?',
  );
  let vectors: VectorMatrix = createVectorMatrix(provider.dim);
  const features = new Map<string, StructuralFeatures>();
  function reload(): void {
    vectors = createVectorMatrix(provider.dim);
    for (const r of loadEmbeddings.all(provider.provider_id)) if (r.embedding_dim === provider.dim) vectors.put(r.id, unpackVector(r.embedding_blob));
    features.clear();
    for (const f of v1.fingerprints()) features.set(f.id, f.structural);
  }
  reload();

  function knnV2(feat: StructuralFeatures, k: number, emb: Float32Array, useWorkloadId: boolean): NeighborMatch[] {
    const query = normalizeFeatures(feat);
    // Structural scores of every outcome come from the v1 index; the blend and the partition go on top.
    const all = v1.findKNearest(query, Number.MAX_SAFE_INTEGER, { useWorkloadId: false });
    const cos = emb.length === provider.dim && vectors.size ? vectors.scores(emb) : new Map<string, number>();
    const scored = all.map((n) => {
      const c = cos.get(n.fingerprint_id);
      const base = c === undefined ? n.similarity : blendScores(c, n.similarity, cfg.alpha);
      const other = features.get(n.fingerprint_id);
      return { ...n, similarity: other ? applyWorkloadPartition(base, query, other, useWorkloadId) : base };
    });
    scored.sort((a, b) => b.similarity - a.similarity || b.sample_size - a.sample_size || (a.fingerprint_id < b.fingerprint_id ? -1 : a.fingerprint_id > b.fingerprint_id ? 1 : a.primary_model < b.primary_model ? -1 : 1));
    return scored.slice(0, k);
  }

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
    cachedEmbedding: (text, providerId) => cache.get(providerId ?? provider.provider_id, text),
    record(input, ctx) {
      const { embedding, ...rest } = input;
      const r = v1.record(rest, ctx);
      if (r.fingerprint_id) {
        features.set(r.fingerprint_id, normalizeFeatures(rest.features));
        if (embedding && embedding.length === provider.dim && !vectors.get(r.fingerprint_id)) {
          // First embedding wins: a fingerprint is keyed by its structural signature (§7.1), the vector describes its first text.
          if (setEmbedding.run(packVector(embedding), provider.provider_id, embedding.length, r.fingerprint_id).changes > 0) vectors.put(r.fingerprint_id, embedding);
        }
      }
      return r;
    },
    recommend(feat, opts, q) {
      if (!q?.embedding) return v1.recommend(feat, opts);
      const t0 = performance.now();
      try {
        const verdict = scoreCluster(knnV2(feat, opts.k ?? 10, q.embedding, true), opts);
        const sig = structuralSignature(normalizeFeatures(feat));
        const fp = v1.fingerprints().find((f) => structuralSignature(f.structural) === sig);
        return { ...verdict, fingerprint_id: fp?.id ?? null, elapsed_ms: performance.now() - t0 };
      } catch {
        return v1.recommend(feat, opts);
      }
    },
    findKNearest(feat, k, opts) {
      if (!opts?.embedding) return v1.findKNearest(feat, k, opts);
      return knnV2(feat, k, opts.embedding, opts.useWorkloadId ?? true);
    },
    fingerprintEmbedding: (id) => vectors.get(id),
    clusterTightness() {
      const ids = [...features.keys()].filter((id) => features.get(id)!.workload_id != null);
      let si = 0, ni = 0, sx = 0, nx = 0;
      for (let i = 0; i < ids.length; i++)
        for (let j = i + 1; j < ids.length; j++) {
          const a = features.get(ids[i]!)!, b = features.get(ids[j]!)!;
          const va = vectors.get(ids[i]!), vb = vectors.get(ids[j]!);
          const structural = structuralOf(a, b);
          const sim = va && vb ? blendScores(dotOf(va, vb), structural, cfg.alpha) : structural;
          if (a.workload_id === b.workload_id) {
            si += sim;
            ni++;
          } else {
            sx += sim;
            nx++;
          }
        }
      return { intra: ni ? si / ni : null, inter: nx ? sx / nx : null };
    },
    embeddingCacheStats: () => cache.stats(),
    evictEmbeddingCache: () => cache.trim(),
    close() {
      v1.close();
      if (db.open) db.close();
    },
  };
  return store;
}
