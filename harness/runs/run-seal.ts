import { existsSync } from 'node:fs';
import type { Database as Db } from 'better-sqlite3';
import { openSqliteForReading } from '../../runtime/core/sqlite-reader.ts';
import type { Provenance } from '../../schemas/types/report.ts';
import { SetupError } from '../errors.ts';
import { SEAL_ENCODING, sealDigest, type SealTable, type SqlValue } from './seal-encoding.ts';
import { eventsSealOf } from './run-events-seal.ts';

/**
 * A finished run's seal: a digest over every row of every table of its trace DB (reps, events, sessions,
 * transcripts, plan, provenance) and over its pattern store's content, in our own canonical encoding
 * (harness/runs/seal-encoding.ts), written when the run is finalised and recomputed by `bench merge`.
 * With METIS_SEAL_KEY set it is an HMAC-SHA256 under that key: whoever edits the DB without the key
 * cannot write a matching seal. Without a key it is a plain SHA-256: tamper-evident only, since anyone
 * with the file and this code can recompute it (docs/threat-model.md).
 */
const SCHEMA = `
CREATE TABLE IF NOT EXISTS bench_run_seal (
  run_id TEXT PRIMARY KEY,
  encoding TEXT NOT NULL,
  scheme TEXT NOT NULL,
  digest TEXT NOT NULL,
  patterns_digest TEXT,
  sealed_at_us INTEGER NOT NULL,
  events_digest TEXT,
  events_checked_with TEXT
);
`;

/** Columns added after the table first shipped (a seal table without them is extended in place; readers then see NULL). */
const ADDED_COLUMNS = ['events_digest TEXT', 'events_checked_with TEXT'];

/** Tables left out of the digest: the seal itself, and the lease (who writes, not what was written). */
export const UNSEALED_TABLES: ReadonlySet<string> = new Set(['bench_run_seal', 'bench_run_lease']);

/** How a seal was made: an HMAC under METIS_SEAL_KEY, or a plain SHA-256. */
export type SealScheme = 'hmac-sha256' | 'sha256';

/** What every merge report says about the seals it checked and wrote. */
export function sealModeText(key: Buffer | null): NonNullable<Provenance['merge_seal']> {
  return key ? 'keyed (HMAC-SHA256 under METIS_SEAL_KEY)' : 'tamper-evident only (no METIS_SEAL_KEY)';
}

/** The seal key from the environment: METIS_SEAL_KEY's UTF-8 bytes; unset or empty (a CI secret a fork does not get) is no key. */
export function sealKeyFrom(env: Readonly<Record<string, string | undefined>>): Buffer | null {
  const v = env.METIS_SEAL_KEY;
  return v ? Buffer.from(v, 'utf8') : null;
}

/** A DB's tables as the seal reads them: values as SQLite stores them (integers exact), columns in declared order. */
function* tablesOf(db: Db, skip: ReadonlySet<string>): Generator<SealTable> {
  const names = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").all() as { name: string }[]).map((t) => t.name).filter((t) => !skip.has(t));
  for (const name of names) {
    const q = `"${name.replace(/"/g, '""')}"`;
    const columns = (db.prepare(`PRAGMA table_info(${q})`).all() as { name: string }[]).map((c) => c.name);
    const list = columns.map((c) => `"${c.replace(/"/g, '""')}"`).join(', ');
    yield { name, columns, rows: db.prepare(`SELECT ${list} FROM ${q}`).raw(true).safeIntegers(true).iterate() as Iterable<SqlValue[]> };
  }
}

/** The trace DB's digest, binding the pattern store's digest (or none), under `key` when given. */
export function contentDigest(db: Db, patternsDigest: string | null, key: Buffer | null): string {
  return sealDigest(tablesOf(db, UNSEALED_TABLES), patternsDigest === null ? '' : `patterns ${patternsDigest}`, key);
}

/**
 * The SHA-256 of a pattern store's content (every table, same encoding); null when there is no store file. Read on
 * a connection that only reads (openSqliteForReading): whether it is the store the run writing the seal has just
 * closed or another run's (merge checks one), nothing is written and no -wal or -shm is left beside it.
 */
export function patternStoreDigest(path: string | null): string | null {
  if (path === null || !existsSync(path)) return null;
  const db = openSqliteForReading(path);
  try {
    return sealDigest(tablesOf(db, new Set()), '', null);
  } finally {
    db.close();
  }
}

const hasTable = (db: Db, name: string) => db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !== undefined;
const hasColumn = (db: Db, table: string, column: string) => (db.prepare(`PRAGMA table_info("${table}")`).all() as { name: string }[]).some((c) => c.name === column);

/** What `sealRun` needs besides the DB: the key (or none) and the run's pattern store (or none). */
export interface SealOptions {
  key: Buffer | null;
  patternsPath: string | null;
}

/** Seals a finalised run (replacing an older seal, whatever its format). */
export function sealRun(db: Db, runId: string, nowUs: number, o: SealOptions): void {
  // A seal table of the SQLite-text format (before metis-seal/2) holds nothing worth keeping.
  if (hasTable(db, 'bench_run_seal') && !hasColumn(db, 'bench_run_seal', 'encoding')) db.exec('DROP TABLE bench_run_seal');
  ensureSealTable(db);
  const patterns = patternStoreDigest(o.patternsPath);
  const digest = contentDigest(db, patterns, o.key);
  // The run's events checked now, once, so that analyze can skip the schema checks while the rows are unchanged.
  const events = eventsSealOf(db, runId);
  db.prepare('INSERT OR REPLACE INTO bench_run_seal (run_id, encoding, scheme, digest, patterns_digest, sealed_at_us, events_digest, events_checked_with) VALUES (?, ?, ?, ?, ?, ?, ?, ?)').run(
    runId,
    SEAL_ENCODING,
    o.key ? 'hmac-sha256' : 'sha256',
    digest,
    patterns,
    nowUs,
    events?.digest ?? null,
    events?.checked_with ?? null,
  );
}

/** Creates the seal table, or adds the columns a table written by an older bench lacks. */
function ensureSealTable(db: Db): void {
  db.exec(SCHEMA);
  for (const column of ADDED_COLUMNS) if (!hasColumn(db, 'bench_run_seal', column.split(' ')[0]!)) db.exec(`ALTER TABLE bench_run_seal ADD COLUMN ${column}`);
}

/**
 * Records the events seal of a run sealed already (its rows as they are now): for a DB of copied runs
 * (harness/runs/test-support/run-copies.ts), each copy sealed as a finished run would be. No seal row, no change.
 */
export function resealRunEvents(db: Db, runId: string): void {
  if (!hasTable(db, 'bench_run_seal')) return;
  ensureSealTable(db);
  const events = eventsSealOf(db, runId);
  db.prepare('UPDATE bench_run_seal SET events_digest = ?, events_checked_with = ? WHERE run_id = ?').run(events?.digest ?? null, events?.checked_with ?? null, runId);
}

/** Removes a run's seal: a resumed run is no longer final until it is finalised again. */
export function unsealRun(db: Db, runId: string): void {
  if (hasTable(db, 'bench_run_seal') && !hasColumn(db, 'bench_run_seal', 'encoding')) db.exec('DROP TABLE bench_run_seal');
  db.exec(SCHEMA);
  db.prepare('DELETE FROM bench_run_seal WHERE run_id = ?').run(runId);
}

/**
 * Refuses (exit 2, naming the DB or store) a run with no seal, a seal of an older format, a seal made
 * with no key when a key is given (or the reverse), content that no longer matches it, or a pattern
 * store (`patternsPath`, as merge finds it) whose content is not the one sealed with the run.
 */
export function checkSeal(db: Db, path: string, runId: string, o: SealOptions): void {
  const has = hasTable(db, 'bench_run_seal');
  if (has && !hasColumn(db, 'bench_run_seal', 'encoding'))
    throw new SetupError(`${path}: run ${runId} was sealed by an older bench (its seal hashed SQLite's own text, which changes with the SQLite version, and cannot be checked here); run the shard again with this version`);
  const row = has ? (db.prepare('SELECT encoding, scheme, digest, patterns_digest FROM bench_run_seal WHERE run_id = ?').get(runId) as { encoding: string; scheme: string; digest: string; patterns_digest: string | null } | undefined) : undefined;
  if (!row) throw new SetupError(`${path}: run ${runId} has no seal (written by an older bench, or its seal was removed), so its rows cannot be checked; run the shard again`);
  if (row.encoding !== SEAL_ENCODING) throw new SetupError(`${path}: run ${runId} is sealed in encoding '${row.encoding}', which this bench does not know (it writes ${SEAL_ENCODING}); merge with the bench that ran it, or run the shard again`);
  if (o.key && row.scheme !== 'hmac-sha256')
    throw new SetupError(
      `${path}: run ${runId} is sealed without a key, but METIS_SEAL_KEY is set here; a shard edited and resealed by someone without the key looks exactly like this, so it is refused. Run the shard again with METIS_SEAL_KEY set (docs/threat-model.md)`,
    );
  if (!o.key && row.scheme !== 'sha256') throw new SetupError(`${path}: run ${runId} is sealed with METIS_SEAL_KEY (HMAC-SHA256); set the same METIS_SEAL_KEY to merge it`);
  const now = contentDigest(db, row.patterns_digest, o.key);
  if (now !== row.digest)
    throw new SetupError(
      `${path}: the DB's content does not match the seal written when run ${runId} finished (${row.scheme} ${row.digest.slice(0, 16)}…, now ${now.slice(0, 16)}…): rows or events were changed, added or removed since${o.key ? ', or the shard was sealed under another METIS_SEAL_KEY' : ''}. Run the shard again`,
    );
  const store = patternStoreDigest(o.patternsPath);
  if (row.patterns_digest === null && store !== null)
    throw new SetupError(`${o.patternsPath}: a pattern store beside ${path}, but run ${runId} sealed none, so its rows cannot be checked; remove it, or run the shard again`);
  if (row.patterns_digest !== null && store !== null && store !== row.patterns_digest)
    throw new SetupError(
      `${o.patternsPath}: the pattern store's content does not match the one sealed with run ${runId} in ${path} (sha256 ${row.patterns_digest.slice(0, 16)}…, now ${store.slice(0, 16)}…): outcomes or fingerprints were changed, added or removed since. Run the shard again`,
    );
}
