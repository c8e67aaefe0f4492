import { existsSync, mkdtempSync, readdirSync, readlinkSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { QUICK_CHECK_MAX_BYTES } from '../../runtime/trace/index.ts';
import { SetupError } from '../errors.ts';
import { TRACE_DB_CACHE_PAGES, TRACE_DB_MMAP_BYTES } from '../../runtime/trace/read-pragmas.ts';
import { openSqliteReadOnly } from './report-from-db.ts';

const dir = mkdtempSync(join(tmpdir(), 'open-read-only-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A one-table SQLite file of `bytes` (zeros past its pages, which SQLite ignores: the header gives its page count). */
function dbFile(name: string, bytes: number | null): string {
  const path = join(dir, name);
  const db = new Database(path);
  db.exec('CREATE TABLE t (x); INSERT INTO t VALUES (42)');
  db.close();
  if (bytes !== null) truncateSync(path, bytes);
  return path;
}

const setupOf = (path: string) => {
  const db = openSqliteReadOnly(path);
  try {
    return { mmap: db.pragma('mmap_size', { simple: true }), cache: db.pragma('cache_size', { simple: true }), x: db.prepare('SELECT x FROM t').pluck().get() };
  } finally {
    db.close();
  }
};

describe('openSqliteReadOnly reads pages as traceReadPragmas says for the file size', () => {
  it('a small DB, scanned whole at open, through a memory map', () => {
    const s = setupOf(dbFile('small.db', null));
    // SQLite caps the map at its compile-time limit, just under TRACE_DB_MMAP_BYTES; any small DB fits whole.
    expect(s.mmap).toBeGreaterThan(QUICK_CHECK_MAX_BYTES);
    expect(s.mmap).toBeLessThanOrEqual(TRACE_DB_MMAP_BYTES);
    expect(s.x).toBe(42);
  });

  it('a DB past the integrity scan through a small page cache and no map', () => {
    // Sparse: the file takes no disk for its zeros.
    const s = setupOf(dbFile('large.db', QUICK_CHECK_MAX_BYTES + 4096));
    expect(s).toEqual({ mmap: 0, cache: TRACE_DB_CACHE_PAGES, x: 42 });
  });

  it('a path with no file, or none it can reach, is a SetupError naming it', () => {
    const missing = join(dir, 'none', 'history.db');
    expect(() => openSqliteReadOnly(missing)).toThrow(SetupError);
    expect(() => openSqliteReadOnly(missing)).toThrow(`${missing}: no such trace DB`);
  });

  // Linux's view of this process's open files: the test needs it to see a handle left behind.
  it.runIf(existsSync('/proc/self/fd'))('a file it opened but cannot read is refused and not left open', () => {
    const path = join(dir, 'notes.db');
    writeFileSync(path, 'these are notes, not a database\n'.repeat(300));
    const openOn = () =>
      readdirSync('/proc/self/fd').filter((fd) => {
        try {
          return readlinkSync(`/proc/self/fd/${fd}`) === path;
        } catch {
          return false; // closed while listed (the directory's own handle)
        }
      }).length;
    expect(() => openSqliteReadOnly(path)).toThrow(/notes\.db: not a SQLite trace DB/);
    expect(openOn()).toBe(0);
  });
});
