// What a SQLite error from better-sqlite3 means for a reader, in words a user can act on; shared by the trace DB
// and the pattern store, whose readers both open files written elsewhere (another user's, a CI artifact).
import { existsSync } from 'node:fs';
import { basename } from 'node:path';

/** The SQLite result code of an error thrown by better-sqlite3 ('SQLITE_CORRUPT', ...), or '' for any other error. */
export const sqliteCode = (e: unknown): string => String((e as { code?: unknown })?.code ?? '');

/**
 * Why a read-only open of `path` failed with SQLITE_READONLY_DIRECTORY: the DB is in WAL mode and the `-shm` file
 * its readers share does not exist and cannot be made (the folder is not writable: another user's DB, a read-only
 * mount), and it could not be read into memory instead (sqlite-reader.ts): a `-wal` file beside it holds commits not
 * yet in the file, or the file is too large. The DB itself may be fine, so it is not called damaged or foreign.
 */
export function walFolderReason(path: string): string {
  const why = existsSync(`${path}-wal`) ? `${basename(path)}-wal beside it holds commits not yet in the file` : 'it is too large to read into memory instead';
  return `cannot be read from here: it is in WAL mode, and SQLite must create ${basename(path)}-shm beside it to read it, but its folder is not writable (${why}). Make the folder writable, or copy the DB (with its -wal file, if there is one) to a folder you can write and pass that path`;
}

/**
 * Whether `e`, thrown by a read-only connection to `path`, is SQLite refusing a WAL file whose `-shm` cannot be made
 * (walFolderReason): SQLITE_READONLY_DIRECTORY, or SQLITE_CANTOPEN when a `-wal` is there without its `-shm`.
 */
export function isWalFolderRefusal(path: string, e: unknown): boolean {
  const code = sqliteCode(e);
  return code === 'SQLITE_READONLY_DIRECTORY' || (code === 'SQLITE_CANTOPEN' && existsSync(`${path}-wal`) && !existsSync(`${path}-shm`));
}
