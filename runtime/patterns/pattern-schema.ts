/** Stamped into `PRAGMA user_version` and store_meta.schema_version; bump with any breaking table edit. */
export const PATTERN_SCHEMA_VERSION = 1;

/** Version after the first v2 use (§16.4): adds embedding_cache, touches no existing row. */
export const PATTERN_SCHEMA_VERSION_V2 = 2;

/** The v2 addition (§16.4): embeddings keyed by (provider, SHA-256 of text), packed float32. Idempotent. */
export const EMBEDDING_CACHE_SQL = `
CREATE TABLE IF NOT EXISTS embedding_cache (
  provider_id      TEXT NOT NULL,
  text_sha256      TEXT NOT NULL,
  vector_blob      BLOB NOT NULL,
  dim              INTEGER NOT NULL,
  created_at_us    INTEGER NOT NULL,
  last_used_at_us  INTEGER NOT NULL,
  use_count        INTEGER NOT NULL,
  PRIMARY KEY (provider_id, text_sha256)
);
CREATE INDEX IF NOT EXISTS idx_embcache_lru ON embedding_cache(last_used_at_us, use_count);
`;

/**
 * pattern-store.md §7.1 plus the §10.4 score history (one row per contributing turn, removed with its
 * outcome by the cascade). Idempotent.
 */
export const PATTERN_SCHEMA_SQL = `
CREATE TABLE IF NOT EXISTS fingerprints (
  id                  TEXT PRIMARY KEY,
  kind                TEXT NOT NULL,
  structural_json     TEXT NOT NULL,
  structural_sig      TEXT NOT NULL,
  embedding_blob      BLOB,
  embedding_provider  TEXT,
  embedding_dim       INTEGER,
  created_at_us       INTEGER NOT NULL,
  UNIQUE (structural_sig, embedding_provider)
);
CREATE INDEX IF NOT EXISTS idx_fp_created    ON fingerprints(created_at_us);
CREATE INDEX IF NOT EXISTS idx_fp_struct_sig ON fingerprints(structural_sig);
-- UNIQUE above lets NULL providers repeat; structural fingerprints must still be one per signature.
CREATE UNIQUE INDEX IF NOT EXISTS idx_fp_structural_once ON fingerprints(structural_sig) WHERE embedding_provider IS NULL;

CREATE TABLE IF NOT EXISTS outcomes (
  fingerprint_id          TEXT NOT NULL,
  primary_model           TEXT NOT NULL,
  sample_size             INTEGER NOT NULL,
  success_score_mean      REAL NOT NULL,
  success_score_count     INTEGER NOT NULL,
  sum_cost_usd_micros     INTEGER NOT NULL,
  sum_latency_ms          REAL NOT NULL,
  pricing_version_last    TEXT NOT NULL,
  last_updated_at_us      INTEGER NOT NULL,
  PRIMARY KEY (fingerprint_id, primary_model),
  FOREIGN KEY (fingerprint_id) REFERENCES fingerprints(id) ON DELETE CASCADE
);
CREATE INDEX IF NOT EXISTS idx_outcomes_updated ON outcomes(last_updated_at_us);

CREATE TABLE IF NOT EXISTS store_meta (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS outcome_score_history (
  turn_id          TEXT PRIMARY KEY,
  fingerprint_id   TEXT NOT NULL,
  primary_model    TEXT NOT NULL,
  eval_id_applied  TEXT,
  score            REAL,
  confidence       REAL,
  folded           INTEGER NOT NULL,
  applied_at_us    INTEGER NOT NULL,
  FOREIGN KEY (fingerprint_id, primary_model) REFERENCES outcomes(fingerprint_id, primary_model) ON DELETE CASCADE
);
CREATE INDEX IF NOT EXISTS idx_history_outcome ON outcome_score_history(fingerprint_id, primary_model);
`;
