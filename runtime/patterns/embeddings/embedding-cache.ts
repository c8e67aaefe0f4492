// The embedding_cache table (pattern-store.md §16.4, §17.2): (provider, SHA-256 of text) → packed float32.
import { createHash } from 'node:crypto';
import type Database from 'better-sqlite3';
import type { Clock } from '../../core/clock.ts';
import { packVector, unpackVector } from './embedding-provider.ts';

/** Cache limits (§16.4). */
export interface EmbeddingCacheLimits {
  max_rows: number;
  max_age_days: number;
}

/** Defaults: 10,000 rows, 90 days. */
export const DEFAULT_EMBEDDING_CACHE_LIMITS: Readonly<EmbeddingCacheLimits> = Object.freeze({ max_rows: 10_000, max_age_days: 90 });

/** Hit/miss counters and the row count. */
export interface EmbeddingCacheStats {
  hits: number;
  misses: number;
  rows: number;
}

/** The embedding cache over an open pattern DB that already has the table. */
export interface EmbeddingCache {
  /** The cached vector (and marks it used), or null; counts a hit or miss. */
  get(providerId: string, text: string): Float32Array | null;
  /** Stores vectors in one transaction; trims only when the table has grown past the slack (§17.2). */
  putMany(providerId: string, entries: ReadonlyArray<{ text: string; vector: Float32Array }>): void;
  /** Age-first, then LRU (use_count breaks ties) eviction down to max_rows; returns rows removed. */
  trim(): number;
  stats(): EmbeddingCacheStats;
}

/** SHA-256 hex of the text: the cache key (the text itself is never stored). */
export function textSha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

const DAY_US = 86_400_000_000;

/** Creates the cache; `limits.max_rows` bounds the table, overshooting by at most 10% between trims. */
export function createEmbeddingCache(db: Database.Database, clock: Clock, limits: EmbeddingCacheLimits): EmbeddingCache {
  const getQ = db.prepare<[string, string], { vector_blob: Buffer }>('SELECT vector_blob FROM embedding_cache WHERE provider_id = ? AND text_sha256 = ?');
  const touchQ = db.prepare('UPDATE embedding_cache SET last_used_at_us = ?, use_count = use_count + 1 WHERE provider_id = ? AND text_sha256 = ?');
  const putQ = db.prepare(
    `INSERT INTO embedding_cache (provider_id, text_sha256, vector_blob, dim, created_at_us, last_used_at_us, use_count)
     VALUES (?, ?, ?, ?, ?, ?, 1)
     ON CONFLICT (provider_id, text_sha256) DO UPDATE SET last_used_at_us = excluded.last_used_at_us, use_count = use_count + 1`,
  );
  const countQ = db.prepare<[], number>('SELECT COUNT(*) FROM embedding_cache').pluck();
  const ageQ = db.prepare('DELETE FROM embedding_cache WHERE last_used_at_us < ?');
  const lruQ = db.prepare(
    `DELETE FROM embedding_cache WHERE rowid IN (
       SELECT rowid FROM embedding_cache ORDER BY last_used_at_us ASC, use_count ASC, provider_id, text_sha256 LIMIT ?)`,
  );
  // One trim per ~10% of growth keeps writes O(1) amortised; trimming per write collapses throughput (§17.2).
  const slack = Math.max(1, Math.ceil(limits.max_rows / 10));
  let rows = countQ.get() ?? 0;
  let hits = 0;
  let misses = 0;

  const trimTx = db.transaction((): number => {
    let removed = ageQ.run(clock.nowUs() - limits.max_age_days * DAY_US).changes;
    const n = countQ.get() ?? 0;
    if (n > limits.max_rows) removed += lruQ.run(n - limits.max_rows).changes;
    rows = countQ.get() ?? 0;
    return removed;
  });

  const putTx = db.transaction((providerId: string, entries: ReadonlyArray<{ text: string; vector: Float32Array }>) => {
    const now = clock.nowUs();
    for (const e of entries) rows += putQ.run(providerId, textSha256(e.text), packVector(e.vector), e.vector.length, now, now).changes > 0 ? 1 : 0;
  });

  return {
    get(providerId, text) {
      const sha = textSha256(text);
      const row = getQ.get(providerId, sha);
      if (!row) {
        misses++;
        return null;
      }
      hits++;
      touchQ.run(clock.nowUs(), providerId, sha);
      return unpackVector(row.vector_blob);
    },
    putMany(providerId, entries) {
      putTx(providerId, entries);
      // `rows` over-counts upserts of existing keys; the trim recounts exactly.
      if (rows > limits.max_rows + slack) trimTx();
    },
    trim: () => trimTx(),
    stats: () => ({ hits, misses, rows: countQ.get() ?? 0 }),
  };
}
