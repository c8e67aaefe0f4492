import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { openSqliteForReading, readsOnly } from './sqlite-reader.ts';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** A folder holding one SQLite file `t.db` with a row in table t, in `mode` (written and closed). */
function fileIn(mode: 'wal' | 'delete'): { dir: string; path: string } {
  const dir = mkdtempSync(join(tmpdir(), 'sqlite-reader-'));
  dirs.push(dir);
  const path = join(dir, 't.db');
  const w = new Database(path);
  w.pragma(`journal_mode = ${mode}`);
  w.exec('CREATE TABLE t (x); INSERT INTO t VALUES (1)');
  w.close();
  return { dir, path };
}

describe('openSqliteForReading', () => {
  it('reads a WAL file and, closed as its last connection, leaves its folder as it found it, the file unchanged', () => {
    const { dir, path } = fileIn('wal');
    const bytes = readFileSync(path);
    const db = openSqliteForReading(path);
    expect(db.prepare('SELECT x FROM t').pluck().get()).toBe(1);
    // Open, SQLite has made the files every WAL reader shares.
    expect(readdirSync(dir).sort()).toEqual(['t.db', 't.db-shm', 't.db-wal']);
    db.close();
    expect(readdirSync(dir)).toEqual(['t.db']);
    expect(readFileSync(path).equals(bytes)).toBe(true);
    // What a read-only connection leaves, for the record: the reason this one is not read-only.
    const ro = new Database(path, { readonly: true });
    ro.prepare('SELECT x FROM t').get();
    ro.close();
    expect(readdirSync(dir).sort()).toEqual(['t.db', 't.db-shm', 't.db-wal']);
    // And a later reader that closes last removes what an earlier one left.
    const later = openSqliteForReading(path);
    later.prepare('SELECT x FROM t').get();
    later.close();
    expect(readdirSync(dir)).toEqual(['t.db']);
  });

  it('refuses every statement that would change the file', () => {
    const { path } = fileIn('wal');
    const db = openSqliteForReading(path);
    for (const sql of ['INSERT INTO t VALUES (2)', 'UPDATE t SET x = 3', 'DELETE FROM t', 'CREATE TABLE u (y)', 'DROP TABLE t'])
      expect(() => db.exec(sql), sql).toThrow(expect.objectContaining({ code: 'SQLITE_READONLY' }));
    expect(db.prepare('SELECT count(*) FROM t').pluck().get()).toBe(1);
    db.close();
  });

  it('beside a live writer in the middle of a write: reads the last commit, closes at once and leaves the writer its files', () => {
    const { dir, path } = fileIn('wal');
    const writer = new Database(path);
    writer.exec('BEGIN IMMEDIATE; INSERT INTO t VALUES (2)');
    const db = openSqliteForReading(path);
    expect(db.prepare('SELECT count(*) FROM t').pluck().get()).toBe(1);
    const started = Date.now();
    db.close();
    // Not the last connection: no checkpoint and no wait on the writer's lock.
    expect(Date.now() - started).toBeLessThan(1000);
    expect(readdirSync(dir).sort()).toEqual(['t.db', 't.db-shm', 't.db-wal']);
    writer.exec('COMMIT');
    expect(writer.prepare('SELECT count(*) FROM t').pluck().get()).toBe(2);
    writer.close();
    expect(readdirSync(dir)).toEqual(['t.db']);
  });

  it('reads a rollback-journal file without writing it or switching its journal mode', () => {
    const { dir, path } = fileIn('delete');
    const bytes = readFileSync(path);
    const db = openSqliteForReading(path);
    expect(db.pragma('journal_mode', { simple: true })).toBe('delete');
    expect(db.prepare('SELECT x FROM t').pluck().get()).toBe(1);
    db.close();
    expect(readdirSync(dir)).toEqual(['t.db']);
    expect(readFileSync(path).equals(bytes)).toBe(true);
  });

  it('never makes a file that is not there', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sqlite-reader-'));
    dirs.push(dir);
    expect(() => openSqliteForReading(join(dir, 'none.db'))).toThrow(expect.objectContaining({ code: 'SQLITE_CANTOPEN' }));
    expect(readdirSync(dir)).toEqual([]);
  });

  it('is told apart from a writer by readsOnly, as a read-only connection is', () => {
    const { path } = fileIn('wal');
    const reader = openSqliteForReading(path);
    const ro = new Database(path, { readonly: true });
    const writer = new Database(path);
    expect([readsOnly(reader), readsOnly(ro), readsOnly(writer)]).toEqual([true, true, false]);
    for (const db of [reader, ro, writer]) db.close();
  });
});
