// A connection for a command that only reads a SQLite file someone else wrote (a trace DB, a pattern store, a
// matrix DB). SQLite gives a WAL file's readers a `-shm` file beside it and makes a `-wal` file on open; only a
// connection that may write can remove them when it closes as the file's last one, so a read-only connection left
// both beside the user's DB after every `analyze` (and two more beside its pattern store).
import { accessSync, constants, existsSync, readFileSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { sqliteCode } from './sqlite-errors.ts';

/** Whether this process may write `path` and create files beside it. */
function writableHere(path: string): boolean {
  try {
    accessSync(path, constants.W_OK);
    accessSync(dirname(path), constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * The existing SQLite file at `path`, opened for reading only. Where this user may write the file and its folder,
 * the connection is a writer's held to reading by `PRAGMA query_only` (SQLite refuses every statement that would
 * change the file, as on a read-only connection): closed as the file's last connection, it removes the `-wal` and
 * `-shm` files, moving into the file first any transactions a writer that died left committed in the `-wal`, as
 * the next writer would. Elsewhere (another user's file, a read-only mount) it is a read-only connection, which
 * leaves them, or a read-only copy in memory of a WAL file that cannot be read in place (readableWithoutShm). Never
 * created, migrated or switched to another journal mode. Throws what better-sqlite3 throws.
 */
export function openSqliteForReading(path: string): Database.Database {
  const db = new Database(path, { readonly: !writableHere(path), fileMustExist: true });
  if (db.readonly) return readableWithoutShm(db, path);
  try {
    db.pragma('query_only = 1');
  } catch (e) {
    db.close();
    throw e;
  }
  return db;
}

/** The largest file read whole into memory when it cannot be read in place (readableWithoutShm). */
const IN_MEMORY_READ_MAX_BYTES = 1 << 30;

/**
 * `db`, a read-only connection to `path`, or what can read the file when `db` cannot: a file in WAL mode whose folder
 * this user cannot write (another user's, a read-only mount) cannot be read in place, since SQLite must make its `-shm`
 * file beside it (SQLITE_READONLY_DIRECTORY). When no `-wal` file is there either (no connection has the file open, and
 * every commit is in the file itself) and the file is at most IN_MEMORY_READ_MAX_BYTES, it is read whole into memory and
 * opened there, read-only. Anything else is handed back as it is, for the caller's first read to report.
 */
function readableWithoutShm(db: Database.Database, path: string): Database.Database {
  try {
    db.prepare('SELECT 1 FROM sqlite_master LIMIT 1').get();
    return db;
  } catch (e) {
    if (sqliteCode(e) !== 'SQLITE_READONLY_DIRECTORY' || existsSync(`${path}-wal`) || statSync(path).size > IN_MEMORY_READ_MAX_BYTES) return db;
  }
  const image = readFileSync(path);
  // Bytes 18 and 19 of the header say WAL mode (2); the copy has no WAL, so it reads as the rollback-journal file it is.
  if (image.length >= 100 && image[18] === 2 && image[19] === 2) image[18] = image[19] = 1;
  db.close();
  return new Database(image, { readonly: true });
}

/**
 * Whether `db` can only read: a read-only connection or one held to reading by `PRAGMA query_only`, as
 * openSqliteForReading opens them. A reader may keep what it read for the connection's life (no write of its own).
 */
export function readsOnly(db: Database.Database): boolean {
  return db.readonly || db.pragma('query_only', { simple: true }) === 1;
}
