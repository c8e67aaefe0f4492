// A connection for a command that only reads a SQLite file someone else wrote (a trace DB, a pattern store, a
// matrix DB). SQLite gives a WAL file's readers a `-shm` file beside it and makes a `-wal` file on open; only a
// connection that may write can remove them when it closes as the file's last one, so a read-only connection left
// both beside the user's DB after every `analyze` (and two more beside its pattern store).
import { accessSync, constants } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';

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
 * leaves them. Never created, migrated or switched to another journal mode. Throws what better-sqlite3 throws.
 */
export function openSqliteForReading(path: string): Database.Database {
  const db = new Database(path, { readonly: !writableHere(path), fileMustExist: true });
  if (!db.readonly) {
    try {
      db.pragma('query_only = 1');
    } catch (e) {
      db.close();
      throw e;
    }
  }
  return db;
}

/**
 * Whether `db` can only read: a read-only connection or one held to reading by `PRAGMA query_only`, as
 * openSqliteForReading opens them. A reader may keep what it read for the connection's life (no write of its own).
 */
export function readsOnly(db: Database.Database): boolean {
  return db.readonly || db.pragma('query_only', { simple: true }) === 1;
}
