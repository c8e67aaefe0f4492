// Persistence for the cache: SQLite in WAL mode, one transaction per write, so a process killed in the
// middle of a write leaves the last committed state readable (issue 16: "survives a crash mid-write").
import Database from 'better-sqlite3';
import type { CanonicalResponse } from '../types/response.ts';
import { packVector, unpackVector } from '../patterns/embeddings/embedding-provider.ts';
import type { CacheEntry, CacheTier } from './cache-entry.ts';

export const CACHE_STORE_VERSION = 1;

export class CacheStoreError extends Error {
  constructor(file: string, message: string) {
    super(`${file}: ${message}`);
    this.name = 'CacheStoreError';
  }
}

interface Row {
  id: string;
  tier: CacheTier;
  key: string;
  query: string;
  task_type: string;
  response_json: string;
  cost_usd: string;
  created_us: number;
  last_used_us: number;
  hits: number;
  wrong_above: number;
  observations: number;
  embedder: string | null;
  vector: Buffer | null;
}

/** A stored entry with its tier 2 vector (null for other tiers). */
export interface StoredEntry {
  entry: CacheEntry;
  embedder: string | null;
  vector: Float32Array | null;
}

export class CacheStore {
  private readonly db: Database.Database;
  private readonly putStmt: Database.Statement;
  private readonly touchStmt: Database.Statement;
  private readonly thresholdStmt: Database.Statement;
  private readonly deleteStmt: Database.Statement;

  constructor(readonly file: string) {
    try {
      this.db = new Database(file);
    } catch (err) {
      throw new CacheStoreError(file, `cannot open the cache database: ${(err as Error).message}`);
    }
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    const version = this.db.pragma('user_version', { simple: true }) as number;
    if (version !== 0 && version !== CACHE_STORE_VERSION)
      throw new CacheStoreError(file, `cache schema version ${version}, this build reads ${CACHE_STORE_VERSION}: delete the file to start an empty cache`);
    this.db.exec(`CREATE TABLE IF NOT EXISTS cache_entries (
      id TEXT PRIMARY KEY, tier TEXT NOT NULL, key TEXT NOT NULL, query TEXT NOT NULL, task_type TEXT NOT NULL,
      response_json TEXT NOT NULL, cost_usd TEXT NOT NULL, created_us INTEGER NOT NULL, last_used_us INTEGER NOT NULL,
      hits INTEGER NOT NULL, wrong_above REAL NOT NULL, observations INTEGER NOT NULL, embedder TEXT, vector BLOB)`);
    this.db.exec('CREATE INDEX IF NOT EXISTS cache_entries_key ON cache_entries (tier, key)');
    this.db.pragma(`user_version = ${CACHE_STORE_VERSION}`);
    this.putStmt = this.db.prepare(`INSERT OR REPLACE INTO cache_entries VALUES
      (@id, @tier, @key, @query, @task_type, @response_json, @cost_usd, @created_us, @last_used_us, @hits, @wrong_above, @observations, @embedder, @vector)`);
    this.touchStmt = this.db.prepare('UPDATE cache_entries SET last_used_us = ?, hits = ? WHERE id = ?');
    this.thresholdStmt = this.db.prepare('UPDATE cache_entries SET wrong_above = ?, observations = ? WHERE id = ?');
    this.deleteStmt = this.db.prepare('DELETE FROM cache_entries WHERE id = ?');
  }

  /** Writes one entry (and its evictions) in a single transaction. */
  put(entry: CacheEntry, embedder: string | null, vector: Float32Array | null, evicted: readonly string[] = []): void {
    this.db.transaction(() => {
      for (const id of evicted) this.deleteStmt.run(id);
      this.putStmt.run({
        id: entry.id,
        tier: entry.tier,
        key: entry.key,
        query: entry.query,
        task_type: entry.task_type,
        response_json: JSON.stringify(entry.response),
        cost_usd: entry.cost_usd,
        created_us: entry.created_us,
        last_used_us: entry.last_used_us,
        hits: entry.hits,
        wrong_above: entry.threshold.wrongAbove,
        observations: entry.threshold.observations,
        embedder,
        vector: vector ? packVector(vector) : null,
      });
    })();
  }

  touch(entry: CacheEntry): void {
    this.touchStmt.run(entry.last_used_us, entry.hits, entry.id);
  }

  saveThreshold(entry: CacheEntry): void {
    this.thresholdStmt.run(entry.threshold.wrongAbove, entry.threshold.observations, entry.id);
  }

  delete(ids: readonly string[]): void {
    this.db.transaction(() => ids.forEach((id) => this.deleteStmt.run(id)))();
  }

  /** Every committed entry, oldest use first. */
  loadAll(): StoredEntry[] {
    const rows = this.db.prepare('SELECT * FROM cache_entries ORDER BY last_used_us, id').all() as Row[];
    return rows.map((r) => ({
      entry: {
        id: r.id,
        tier: r.tier,
        key: r.key,
        query: r.query,
        task_type: r.task_type,
        response: JSON.parse(r.response_json) as CanonicalResponse,
        cost_usd: r.cost_usd,
        created_us: r.created_us,
        last_used_us: r.last_used_us,
        hits: r.hits,
        threshold: { wrongAbove: r.wrong_above, observations: r.observations },
      },
      embedder: r.embedder,
      vector: r.vector ? unpackVector(r.vector) : null,
    }));
  }

  count(): number {
    return (this.db.prepare('SELECT COUNT(*) AS n FROM cache_entries').get() as { n: number }).n;
  }

  integrityOk(): boolean {
    return this.db.pragma('integrity_check', { simple: true }) === 'ok';
  }

  close(): void {
    this.db.close();
  }
}
