// The embedding cache of embedding-cache.ts held in a map: the same hits, misses, row counts and
// eviction order (age first, then last use, use count, provider, SHA-256 of the text), with no table.
import type { Clock } from '../../core/clock.ts';
import { textSha256, type EmbeddingCache, type EmbeddingCacheLimits } from './embedding-cache.ts';

interface CacheEntry {
  providerId: string;
  text: string;
  vector: Float32Array;
  lastUsedUs: number;
  useCount: number;
}

const DAY_US = 86_400_000_000;

/**
 * An empty in-memory cache bounded by `limits`, trimming as the SQLite cache does (at 10% past max_rows).
 * `journal` takes the undo of each change to the rows, so a store's rolled-back batch takes back its cache
 * writes as the SQLite cache's (which shares the store's connection) are.
 */
export function createMemoryEmbeddingCache(clock: Clock, limits: EmbeddingCacheLimits, journal: (undo: () => void) => void = () => {}): EmbeddingCache {
  // Keyed by the text itself: hashing is only needed for the eviction tie-break, so it waits for a trim. One map
  // per provider, keyed by the caller's own string: a string keeps its hash once computed, where a key joined
  // per call (provider + text) was hashed over the whole text on every read and write.
  const byProvider = new Map<string, Map<string, CacheEntry>>();
  let size = 0;
  const rowsOf = (providerId: string): Map<string, CacheEntry> => {
    let rows = byProvider.get(providerId);
    if (!rows) byProvider.set(providerId, (rows = new Map()));
    return rows;
  };
  const add = (e: CacheEntry) => {
    rowsOf(e.providerId).set(e.text, e);
    size++;
  };
  const remove = (e: CacheEntry) => {
    if (byProvider.get(e.providerId)?.delete(e.text)) size--;
  };
  const slack = Math.max(1, Math.ceil(limits.max_rows / 10));
  let counted = 0;
  let hits = 0;
  let misses = 0;
  const touch = (e: CacheEntry, now: number) => {
    const { lastUsedUs, useCount } = e;
    e.lastUsedUs = now;
    e.useCount++;
    journal(() => {
      e.lastUsedUs = lastUsedUs;
      e.useCount = useCount;
    });
  };

  function trim(): number {
    const before = size;
    const cutoff = clock.nowUs() - limits.max_age_days * DAY_US;
    const drop = (e: CacheEntry) => {
      remove(e);
      journal(() => add(e));
    };
    const all = () => [...byProvider.values()].flatMap((rows) => [...rows.values()]);
    for (const e of all()) if (e.lastUsedUs < cutoff) drop(e);
    const over = size - limits.max_rows;
    if (over > 0) {
      const sha = new Map<CacheEntry, string>();
      const shaOf = (e: CacheEntry) => {
        let s = sha.get(e);
        if (s === undefined) sha.set(e, (s = textSha256(e.text)));
        return s;
      };
      const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
      // A total order (provider and text identify a row), so the rows dropped do not depend on the maps' order.
      const order = all().sort((a, b) => a.lastUsedUs - b.lastUsedUs || a.useCount - b.useCount || cmp(a.providerId, b.providerId) || cmp(shaOf(a), shaOf(b)));
      for (let i = 0; i < over; i++) drop(order[i]!);
    }
    counted = size;
    return before - size;
  }

  return {
    get(providerId, text) {
      const e = byProvider.get(providerId)?.get(text);
      if (!e) {
        misses++;
        return null;
      }
      hits++;
      touch(e, clock.nowUs());
      // A copy, as a BLOB read is: the caller owns what it gets.
      return new Float32Array(e.vector);
    },
    putMany(providerId, entries) {
      const now = clock.nowUs();
      const rows = rowsOf(providerId);
      for (const { text, vector } of entries) {
        const e = rows.get(text);
        // An existing key keeps its vector and creation (the upsert only touches it).
        if (e) touch(e, now);
        else {
          const added: CacheEntry = { providerId, text, vector: new Float32Array(vector), lastUsedUs: now, useCount: 1 };
          add(added);
          journal(() => remove(added));
        }
        // As the SQLite cache counts: one per statement that changed a row, upserts included.
        counted++;
      }
      if (counted > limits.max_rows + slack) trim();
    },
    trim,
    stats: () => ({ hits, misses, rows: size }),
  };
}
