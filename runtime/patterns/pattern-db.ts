// The SQLite file behind a pattern store: opening (pragmas, schema, version) and the prepared statements.
// Policy (what to write, what to evict) lives in sqlite-pattern-store.ts and eviction.ts.
import Database from 'better-sqlite3';
import { onFirstUse } from '../core/on-first-use.ts';
import { PATTERN_SCHEMA_SQL, PATTERN_SCHEMA_VERSION, PATTERN_SCHEMA_VERSION_V2 } from './pattern-schema.ts';
import { clearPromptOutcomes, ensurePromptOutcomes, insertPromptOutcome, readPromptOutcomes, scorePromptOutcome, type StoredPromptRow } from './prompt-outcomes.ts';

/** A fingerprints row (embedding columns are v2 and not read here). */
export interface FingerprintRow {
  id: string;
  kind: string;
  structural_json: string;
  structural_sig: string;
  created_at_us: number;
}

/** A fingerprint's stored v2 embedding (§16.4.2 packed float32). */
export interface EmbeddingRow {
  id: string;
  embedding_blob: Buffer;
  embedding_dim: number;
}

/** An outcomes row; the micro-dollar sum is read as a bigint, never a float. */
export interface OutcomeRow {
  fingerprint_id: string;
  primary_model: string;
  sample_size: number;
  success_score_mean: number;
  success_score_count: number;
  sum_cost_usd_micros: bigint;
  sum_latency_ms: number;
  pricing_version_last: string;
  last_updated_at_us: number;
}

/** An outcome_score_history row: the verdict state of one contributing turn. */
export interface HistoryRow {
  turn_id: string;
  fingerprint_id: string;
  primary_model: string;
  /** The latest eval_id seen for the turn (folded or gated); null for a score given to `record`. */
  eval_id_applied: string | null;
  score: number | null;
  confidence: number | null;
  /** 1 when `score` is part of the outcome's success mean. */
  folded: number;
  applied_at_us: number;
}

/** An outcome row chosen for eviction. */
export interface OutcomeKey {
  fingerprint_id: string;
  primary_model: string;
  last_updated_at_us: number;
}

type RawOutcome = Omit<OutcomeRow, 'sum_cost_usd_micros'> & { sum_cost_text: string };

const OUTCOME_COLUMNS = `fingerprint_id, primary_model, sample_size, success_score_mean, success_score_count,
  CAST(sum_cost_usd_micros AS TEXT) AS sum_cost_text, sum_latency_ms, pricing_version_last, last_updated_at_us`;
// LRU with the §6.3 sample-size tie-break; rowid (insertion order) makes the order total.
const EVICTION_ORDER = 'ORDER BY last_updated_at_us ASC, sample_size ASC, rowid ASC';

/** Every fingerprint row, oldest first: what a store's `fingerprints()` and a report's reader (read-fingerprints.ts) list. */
export const ALL_FINGERPRINTS_SQL = 'SELECT id, kind, structural_json, structural_sig, created_at_us FROM fingerprints ORDER BY created_at_us, id';

/** The stored embeddings of one provider (v2 columns). */
export const EMBEDDINGS_OF_SQL = 'SELECT id, embedding_blob, embedding_dim FROM fingerprints WHERE embedding_blob IS NOT NULL AND embedding_provider = ?';

const toOutcome = ({ sum_cost_text, ...r }: RawOutcome): OutcomeRow => ({ ...r, sum_cost_usd_micros: BigInt(sum_cost_text) });

/** Thrown when the file is a pattern DB of a newer schema. */
export class PatternSchemaError extends Error {
  constructor(path: string, found: number) {
    super(`${path}: pattern store schema version ${found}, but this code reads version ${PATTERN_SCHEMA_VERSION}`);
    this.name = 'PatternSchemaError';
  }
}

/** The open database and its statements. */
export type PatternDb = ReturnType<typeof openPatternDb>;

/** The tables a store's policy (writes, eviction, reloads) works on: a SQLite file or memory-pattern-tables.ts. */
export type PatternTables = Omit<PatternDb, 'connection'>;

/**
 * Opens (creating when absent) a pattern DB: WAL, synchronous=NORMAL, foreign keys on, `busyTimeoutMs`
 * of waiting for another writer. Throws on a file that is not SQLite, is corrupt, or is of a newer schema.
 */
export function openPatternDb(path: string, busyTimeoutMs: number) {
  const db = new Database(path, { timeout: busyTimeoutMs });
  try {
    // The first read is where SQLite notices a file that is not a database.
    const version = db.pragma('user_version', { simple: true }) as number;
    // v2 (§16.4) only adds embedding_cache, so a v1 reader tolerates it.
    if (version > PATTERN_SCHEMA_VERSION_V2) throw new PatternSchemaError(path, version);
    // Only a new file is written to here, so opening never waits on another connection's write.
    if (db.pragma('journal_mode', { simple: true }) !== 'wal') db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    if (version < PATTERN_SCHEMA_VERSION) {
      db.transaction(() => {
        db.exec(PATTERN_SCHEMA_SQL);
        db.prepare("INSERT OR IGNORE INTO store_meta (key, value) VALUES ('schema_version', ?)").run(String(PATTERN_SCHEMA_VERSION));
        db.pragma(`user_version = ${PATTERN_SCHEMA_VERSION}`);
      }).immediate();
    }
  } catch (err) {
    db.close();
    throw err;
  }

  const dataVersion = db.prepare('PRAGMA data_version').pluck();
  // One transaction wrapper reused by every write and read: better-sqlite3 builds (and compiles the
  // BEGIN/COMMIT of) a new one per db.transaction call, which a seeding loop of 100k records paid each time.
  const inTransaction = db.transaction(<T>(fn: () => T): T => fn());
  // Prepared at first use: analyze reads a run's store for its fingerprints only, one statement of these.
  const q = onFirstUse({
    fingerprintBySig: () => db.prepare<[string], FingerprintRow>(
      'SELECT id, kind, structural_json, structural_sig, created_at_us FROM fingerprints WHERE structural_sig = ? ORDER BY embedding_provider IS NOT NULL LIMIT 1',
    ),
    insertFingerprint: () => db.prepare(
      "INSERT INTO fingerprints (id, kind, structural_json, structural_sig, created_at_us) VALUES (@id, 'structural', @structural_json, @structural_sig, @created_at_us)",
    ),
    allFingerprints: () => db.prepare<[], FingerprintRow>(ALL_FINGERPRINTS_SQL),
    outcome: () => db.prepare<[string, string], RawOutcome>(`SELECT ${OUTCOME_COLUMNS} FROM outcomes WHERE fingerprint_id = ? AND primary_model = ?`),
    allOutcomes: () => db.prepare<[], RawOutcome>(`SELECT ${OUTCOME_COLUMNS} FROM outcomes ORDER BY fingerprint_id, primary_model`),
    upsertOutcome: () => db.prepare(
      `INSERT INTO outcomes (fingerprint_id, primary_model, sample_size, success_score_mean, success_score_count,
         sum_cost_usd_micros, sum_latency_ms, pricing_version_last, last_updated_at_us)
       VALUES (@fingerprint_id, @primary_model, @sample_size, @success_score_mean, @success_score_count,
         @sum_cost_usd_micros, @sum_latency_ms, @pricing_version_last, @last_updated_at_us)
       ON CONFLICT (fingerprint_id, primary_model) DO UPDATE SET
         sample_size = excluded.sample_size, success_score_mean = excluded.success_score_mean,
         success_score_count = excluded.success_score_count, sum_cost_usd_micros = excluded.sum_cost_usd_micros,
         sum_latency_ms = excluded.sum_latency_ms, pricing_version_last = excluded.pricing_version_last,
         last_updated_at_us = excluded.last_updated_at_us`,
    ),
    history: () => db.prepare<[string], HistoryRow>('SELECT * FROM outcome_score_history WHERE turn_id = ?'),
    putHistory: () => db.prepare(
      `INSERT OR REPLACE INTO outcome_score_history
         (turn_id, fingerprint_id, primary_model, eval_id_applied, score, confidence, folded, applied_at_us)
       VALUES (@turn_id, @fingerprint_id, @primary_model, @eval_id_applied, @score, @confidence, @folded, @applied_at_us)`,
    ),
    countOutcomes: () => db.prepare<[], number>('SELECT COUNT(*) FROM outcomes').pluck(),
    countFingerprints: () => db.prepare<[], number>('SELECT COUNT(*) FROM fingerprints').pluck(),
    oldestUpdate: () => db.prepare<[], number | null>('SELECT MIN(last_updated_at_us) FROM outcomes').pluck(),
    staleOutcomes: () => db.prepare<[number], OutcomeKey>(
      `SELECT fingerprint_id, primary_model, last_updated_at_us FROM outcomes WHERE last_updated_at_us < ? ${EVICTION_ORDER}`,
    ),
    lruOutcomes: () => db.prepare<[number, number], OutcomeKey>(
      `SELECT fingerprint_id, primary_model, last_updated_at_us FROM outcomes WHERE last_updated_at_us >= ? ${EVICTION_ORDER} LIMIT ?`,
    ),
    deleteOutcome: () => db.prepare('DELETE FROM outcomes WHERE fingerprint_id = ? AND primary_model = ?'),
    deleteOrphan: () => db.prepare('DELETE FROM fingerprints WHERE id = @id AND NOT EXISTS (SELECT 1 FROM outcomes WHERE fingerprint_id = @id)'),
    deleteAll: () => db.prepare('DELETE FROM fingerprints'),
    setMeta: () => db.prepare('INSERT INTO store_meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value'),
    embeddingsOf: () => db.prepare<[string], EmbeddingRow>(EMBEDDINGS_OF_SQL),
    // First embedding wins: a fingerprint is keyed by its structural signature (§7.1), the vector describes its first text.
    setEmbedding: () => db.prepare("UPDATE fingerprints SET kind = 'hybrid', embedding_blob = ?, embedding_provider = ?, embedding_dim = ? WHERE id = ? AND embedding_blob IS NULL"),
  });

  return {
    path,
    /** Changes when another connection commits (SQLite's cheap cross-process change counter). */
    dataVersion: () => dataVersion.get() as number,
    /** Runs `fn` in a BEGIN IMMEDIATE transaction: writers queue on the busy timeout instead of failing mid-way. */
    write: <T>(fn: () => T): T => inTransaction.immediate(fn) as T,
    /** True inside a transaction (a batch's, or a write's). */
    inTransaction: () => db.inTransaction,
    /** Opens a batch: a write transaction left open across awaits; write() calls inside it become savepoints. */
    begin: () => void db.exec('BEGIN IMMEDIATE'),
    commit: () => void db.exec('COMMIT'),
    /** Ends a batch without keeping its writes (a no-op when SQLite already rolled it back). */
    rollback: () => {
      if (db.inTransaction) db.exec('ROLLBACK');
    },
    /** Runs `fn` in one read snapshot. */
    read: <T>(fn: () => T): T => inTransaction.deferred(fn) as T,
    fingerprintBySig: (sig: string) => q.fingerprintBySig.get(sig),
    insertFingerprint: (row: FingerprintRow) => void q.insertFingerprint.run(row),
    allFingerprints: () => q.allFingerprints.all(),
    outcome: (fingerprintId: string, model: string) => {
      const raw = q.outcome.get(fingerprintId, model);
      return raw ? toOutcome(raw) : undefined;
    },
    allOutcomes: () => q.allOutcomes.all().map(toOutcome),
    upsertOutcome: (row: OutcomeRow) => void q.upsertOutcome.run(row),
    history: (turnId: string) => q.history.get(turnId),
    putHistory: (row: HistoryRow) => void q.putHistory.run(row),
    countOutcomes: () => q.countOutcomes.get()!,
    countFingerprints: () => q.countFingerprints.get()!,
    oldestUpdate: () => q.oldestUpdate.get() ?? null,
    staleOutcomes: (cutoffUs: number) => q.staleOutcomes.all(cutoffUs),
    lruOutcomes: (cutoffUs: number, limit: number) => q.lruOutcomes.all(cutoffUs, limit),
    deleteOutcome: (key: OutcomeKey) => void q.deleteOutcome.run(key.fingerprint_id, key.primary_model),
    /** Deletes the fingerprint when no outcome refers to it any more; true when it went. */
    deleteOrphan: (fingerprintId: string) => q.deleteOrphan.run({ id: fingerprintId }).changes > 0,
    deleteAll: () => void q.deleteAll.run(),
    setMeta: (key: string, value: string) => void q.setMeta.run(key, value),
    /** v2: the embeddings stored under `providerId`. */
    embeddingsOf: (providerId: string) => q.embeddingsOf.all(providerId),
    /** v2: makes the fingerprint hybrid with this packed vector unless it has one; true when written. */
    setEmbedding: (fingerprintId: string, blob: Buffer, providerId: string, dim: number) => q.setEmbedding.run(blob, providerId, dim, fingerprintId).changes > 0,
    /** `learned` scoring's per-turn prompt rows (prompt-outcomes.ts): inserted once per turn (true when new; the table made on first write). */
    insertPromptOutcome: (turnId: string, row: StoredPromptRow) => {
      ensurePromptOutcomes(db);
      return insertPromptOutcome(db, turnId, row);
    },
    /** A late verdict for a recorded turn's prompt row; true when a row changed. */
    scorePromptOutcome: (turnId: string, score: number) => scorePromptOutcome(db, turnId, score),
    /** Every scored prompt row, in insertion order. */
    readPromptOutcomes: () => readPromptOutcomes(db),
    clearPromptOutcomes: () => clearPromptOutcomes(db),
    /** The connection itself, for the v2 embedding cache: sharing it keeps the cache's commits from reading as foreign ones (data_version). */
    connection: db,
    close: () => void db.close(),
  };
}
