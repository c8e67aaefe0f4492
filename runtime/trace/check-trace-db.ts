// An existing trace DB is checked before anything reads it, so a wrong one gets a message, not a SqliteError stack.
import { statSync } from 'node:fs';
import type Database from 'better-sqlite3';
import { isWalFolderRefusal, sqliteCode, walFolderReason } from '../core/sqlite-errors.ts';
import { TraceStoreError } from './errors.ts';
import { READABLE_TRACE_SCHEMA_VERSIONS, TRACE_SCHEMA_VERSION } from './schema.ts';

/**
 * Above this size the up-front integrity scan is skipped: it reads every page (1.2 s on a DB of 100 nightly
 * runs), and corrupt pages are still caught where a reader meets them (`damagedTraceDbError`).
 */
export const QUICK_CHECK_MAX_BYTES = 64 * 1024 * 1024;

/**
 * Throws a TraceStoreError naming `path` and what to do when the open DB carries another trace
 * schema version, or (up to QUICK_CHECK_MAX_BYTES) fails SQLite's quick integrity check (corrupt pages, truncated file) or is not
 * a database at all. Version 0 (a DB that never held a trace) passes: its readers say it is empty.
 */
export function assertReadableTraceDb(db: Database.Database, path: string): void {
  let version: number;
  try {
    version = db.pragma('user_version', { simple: true }) as number;
  } catch (e) {
    throw damaged(path, e);
  }
  if (version !== 0 && !READABLE_TRACE_SCHEMA_VERSIONS.includes(version)) {
    throw new TraceStoreError(
      path,
      `trace schema version ${version}, but this Metis bench reads versions ${READABLE_TRACE_SCHEMA_VERSIONS.join(' and ')} (and writes ${TRACE_SCHEMA_VERSION}): the DB was written by another version. Read it with the version that wrote it, or run \`bench run\` again to write a new DB`,
    );
  }
  if (fileSize(path) > QUICK_CHECK_MAX_BYTES) return;
  let rows: { quick_check: string }[];
  try {
    rows = db.pragma('quick_check(5)') as { quick_check: string }[];
  } catch (e) {
    throw damaged(path, e);
  }
  const problems = rows.map((r) => r.quick_check).filter((m) => m !== 'ok');
  if (problems.length > 0) throw damaged(path, new Error(problems.join('; ')));
}

function fileSize(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

/** The TraceStoreError for a SQLite error that means a damaged or foreign DB (met while reading it); null for any other error. */
export function damagedTraceDbError(path: string, e: unknown): TraceStoreError | null {
  const code = sqliteCode(e);
  return code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB' ? damaged(path, e) : null;
}

/**
 * The TraceStoreError for a read-only open SQLite refused because the DB is in WAL mode and the `-shm` file its
 * readers share does not exist and cannot be made (the folder is not writable: another user's DB, a read-only
 * mount); null for any other error. The DB itself may be fine, so it is not called damaged or foreign.
 */
export function walFolderError(path: string, e: unknown): TraceStoreError | null {
  return isWalFolderRefusal(path, e) ? new TraceStoreError(path, walFolderReason(path)) : null;
}

function damaged(path: string, e: unknown): TraceStoreError {
  const code = sqliteCode(e);
  if (code === 'SQLITE_NOTADB') return new TraceStoreError(path, 'is not a SQLite database (expected a trace DB written by `bench run`; check the path)');
  const detail = (e as Error)?.message ?? String(e);
  return new TraceStoreError(path, `the trace DB is damaged (SQLite: ${detail.replace(/\s*\n\s*/g, ' ').slice(0, 300)}). Restore it from a copy (e.g. the CI artifact), or run \`bench run\` again with a new --db-path`);
}
