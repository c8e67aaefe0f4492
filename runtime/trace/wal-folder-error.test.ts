import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { walFolderError } from './check-trace-db.ts';
import { TraceStoreError } from './errors.ts';

// What better-sqlite3 throws for a read-only open of a WAL trace DB whose folder this user cannot write and which has
// no -shm file yet (seen as an unprivileged user on a root-owned 0755 folder: the first read fails, not the open).
const refused = Object.assign(new Error('attempt to write a readonly database'), { code: 'SQLITE_READONLY_DIRECTORY' });

describe('walFolderError', () => {
  it('says the DB is unreadable from here because of its folder, names the -shm file and the fix, and does not call it damaged', () => {
    const e = walFolderError('/data/nightly/trace.db', refused);
    expect(e).toBeInstanceOf(TraceStoreError);
    expect(e!.message).toContain('/data/nightly/trace.db');
    expect(e!.message).toMatch(/WAL mode/);
    expect(e!.message).toContain('trace.db-shm');
    expect(e!.message).toMatch(/folder is not writable/);
    expect(e!.message).toMatch(/copy the DB \(with its -wal file/);
    expect(e!.message).not.toMatch(/damaged|not a SQLite/);
  });

  it('reads SQLITE_CANTOPEN the same way when a -wal is there without its -shm (the open fails, not the first read), and only then', () => {
    const dir = mkdtempSync(join(tmpdir(), 'wal-folder-'));
    try {
      const path = join(dir, 'trace.db');
      writeFileSync(`${path}-wal`, '');
      const cantOpen = Object.assign(new Error('unable to open database file'), { code: 'SQLITE_CANTOPEN' });
      expect(walFolderError(path, cantOpen)!.message).toContain('trace.db-wal beside it holds commits not yet in the file');
      writeFileSync(`${path}-shm`, '');
      expect(walFolderError(path, cantOpen)).toBeNull();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('leaves every other SQLite error to the callers (damaged, foreign, other read-only causes)', () => {
    for (const code of ['SQLITE_READONLY', 'SQLITE_CORRUPT', 'SQLITE_NOTADB', 'SQLITE_CANTOPEN', undefined])
      expect(walFolderError('/x.db', Object.assign(new Error('x'), { code }))).toBeNull();
    expect(walFolderError('/x.db', 'not an error')).toBeNull();
  });
});
