// A pattern store's fingerprints (and one provider's embeddings) read from its file without opening it for writing:
// what the report of a finished run needs for cluster tightness. The store itself (sqlite-pattern-store.ts) opens
// read-write, migrates an older schema and degrades to empty on a file it cannot use, because routing must never
// fail a turn; a report must neither change the store it reads nor show one it could not read as an empty one, so
// this reader throws, saying why.
import type Database from 'better-sqlite3';
import { isWalFolderRefusal, sqliteCode, walFolderReason } from '../core/sqlite-errors.ts';
import { openSqliteForReading } from '../core/sqlite-reader.ts';
import { unpackVector } from './embeddings/embedding-provider.ts';
import { ALL_FINGERPRINTS_SQL, EMBEDDINGS_OF_SQL, PatternSchemaError, type EmbeddingRow, type FingerprintRow } from './pattern-db.ts';
import type { PatternStore, StoredFingerprint } from './pattern-store.ts';
import { PATTERN_SCHEMA_VERSION_V2 } from './pattern-schema.ts';
import { storedFingerprint } from './stored-rows.ts';
import { isPatternStoreV2 } from './store-version.ts';

/** A pattern store file that could not be read, and why (the message names the file). */
export class PatternReadError extends Error {
  constructor(
    readonly path: string,
    readonly reason: string,
  ) {
    super(`${path}: ${reason}`);
    this.name = 'PatternReadError';
  }
}

/** A store's fingerprints as a report reads them, from the file (readPatternFingerprints) or a live store. */
export interface PatternFingerprints {
  fingerprints: StoredFingerprint[];
  /** v2 only: the provider whose embeddings are held, and each fingerprint's (null when it has none). */
  embeddings: { provider: string; of(fingerprintId: string): Float32Array | null } | null;
}

/** The same view of a store open in this process (a run reports on the store it has just written). */
export function fingerprintsOfStore(store: PatternStore): PatternFingerprints {
  const fingerprints = store.fingerprints();
  if (!isPatternStoreV2(store)) return { fingerprints, embeddings: null };
  return { fingerprints, embeddings: { provider: store.embeddingProvider.provider_id, of: (id) => store.fingerprintEmbedding(id) } };
}

/**
 * The fingerprints of the pattern store at `path`, and with `embeddingProvider` (a v2 run's) their embeddings by
 * that provider, all of the dimension the first of them has (a provider has one), as a v2 store mirrors them. One
 * read transaction, on a connection that only reads (openSqliteForReading): the file is never written, migrated or
 * switched to WAL, and no -wal or -shm file is left beside it.
 * Throws a PatternReadError for a file that is missing, not SQLite, damaged, of a newer schema, without the
 * store's tables, or unreadable here (a WAL DB in a folder this user cannot write).
 */
export function readPatternFingerprints(path: string, embeddingProvider: string | null): PatternFingerprints {
  let db: Database.Database | null = null;
  try {
    db = openSqliteForReading(path);
    const conn = db;
    const version = conn.pragma('user_version', { simple: true }) as number;
    if (version > PATTERN_SCHEMA_VERSION_V2) throw new PatternSchemaError(path, version);
    return conn.transaction((): PatternFingerprints => {
      const fingerprints = (conn.prepare(ALL_FINGERPRINTS_SQL).all() as FingerprintRow[]).map(storedFingerprint);
      if (embeddingProvider === null) return { fingerprints, embeddings: null };
      const vectors = new Map<string, Float32Array>();
      // A store written before v2 has no embedding columns: its fingerprints have no embeddings.
      if (hasEmbeddingColumns(conn)) {
        const rows = conn.prepare(EMBEDDINGS_OF_SQL).all(embeddingProvider) as EmbeddingRow[];
        const dim = rows[0]?.embedding_dim;
        for (const row of rows) if (row.embedding_dim === dim && !vectors.has(row.id)) vectors.set(row.id, unpackVector(row.embedding_blob));
      }
      return { fingerprints, embeddings: { provider: embeddingProvider, of: (id) => vectors.get(id) ?? null } };
    })();
  } catch (e) {
    throw e instanceof PatternReadError ? e : new PatternReadError(path, reasonOf(path, e));
  } finally {
    db?.close();
  }
}

function hasEmbeddingColumns(db: Database.Database): boolean {
  return db.prepare("SELECT count(*) FROM pragma_table_info('fingerprints') WHERE name IN ('embedding_blob', 'embedding_provider', 'embedding_dim')").pluck().get() === 3;
}

/** What went wrong reading `path`, in words a user can act on. */
function reasonOf(path: string, e: unknown): string {
  if (e instanceof PatternSchemaError) return `${e.message.replace(`${path}: `, '')}; read it with the bench that wrote it`;
  const code = sqliteCode(e);
  const detail = (e instanceof Error ? e.message : String(e)).replace(/\s*\n\s*/g, ' ').slice(0, 300);
  if (isWalFolderRefusal(path, e)) return walFolderReason(path);
  if (code === 'SQLITE_CANTOPEN') return 'no such pattern store (check the path)';
  if (code === 'SQLITE_NOTADB') return 'is not a SQLite database (expected the pattern store a bench run wrote; check the path)';
  if (code.startsWith('SQLITE_CORRUPT')) return `the pattern store is damaged (SQLite: ${detail}); restore it from a copy`;
  if (/no such table: fingerprints/.test(detail)) return 'holds no pattern store (no fingerprints table; check the path)';
  return code ? `cannot be read (SQLite: ${detail})` : `holds a fingerprint this bench cannot read (${detail})`;
}
