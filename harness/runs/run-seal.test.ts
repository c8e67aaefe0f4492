import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { checkSeal, contentDigest, sealKeyFrom, sealRun } from './run-seal.ts';

const KEY = Buffer.from('a key held outside the shard machines');

/** A trace DB with one run row and one hand-made row of every storage class. */
function traceDb(dir: string, name = 'shard.db'): Database.Database {
  const db = new Database(join(dir, name));
  db.exec('CREATE TABLE reps (a, b INTEGER, c INTEGER, d REAL, e TEXT, f BLOB)');
  db.prepare('INSERT INTO reps VALUES (?, ?, ?, ?, ?, ?)').run(null, 42n, -7n, 0.1, 'héllo', Buffer.from([0, 255]));
  db.prepare('INSERT INTO reps VALUES (?, ?, ?, ?, ?, ?)').run(null, 1n, 2n, 1.5, '', Buffer.alloc(0));
  return db;
}

/** A pattern store with one outcome, as a run leaves it. */
function store(path: string): string {
  const db = new Database(path);
  db.exec('CREATE TABLE outcomes (fingerprint_id TEXT, primary_model TEXT, success_score_mean REAL, sum_cost_usd_micros INTEGER)');
  db.prepare('INSERT INTO outcomes VALUES (?, ?, ?, ?)').run('fp_1', 'cheap', 0.25, 1200n);
  db.close();
  return path;
}

const fresh = () => mkdtempSync(join(tmpdir(), 'seal-'));

describe('the run seal', () => {
  it('is computed from the values SQLite returns, not its text: the DB gives the hand-made digest of seal-encoding.test.ts', () => {
    const db = traceDb(fresh());
    expect(contentDigest(db, null, null)).toBe('1712e55052b26ee02d1ee9065a515e6dc5182fed5b4eb5cb3937db594d99e73a');
    db.close();
  });

  it('passes an untouched run, keyed or not', () => {
    for (const key of [null, KEY]) {
      const dir = fresh();
      const db = traceDb(dir);
      const patternsPath = store(join(dir, 'shard.patterns.db'));
      sealRun(db, 'run_1', 1, { key, patternsPath });
      expect(() => checkSeal(db, db.name, 'run_1', { key, patternsPath })).not.toThrow();
      db.close();
    }
  });

  it('with a key, refuses a DB edited and resealed without it (before: a plain SHA-256 anyone recomputes)', () => {
    const db = traceDb(fresh());
    sealRun(db, 'run_1', 1, { key: KEY, patternsPath: null });
    db.exec("UPDATE reps SET d = 1.0 WHERE b = 1");
    // The forger reseals as a keyless bench would…
    sealRun(db, 'run_1', 2, { key: null, patternsPath: null });
    expect(() => checkSeal(db, db.name, 'run_1', { key: KEY, patternsPath: null })).toThrow(/shard\.db: run run_1 is sealed without a key, but METIS_SEAL_KEY is set here/);
    // …or under a key of their own.
    sealRun(db, 'run_1', 3, { key: Buffer.from('a guess'), patternsPath: null });
    expect(() => checkSeal(db, db.name, 'run_1', { key: KEY, patternsPath: null })).toThrow(/content does not match the seal .*or the shard was sealed under another METIS_SEAL_KEY/);
    db.close();
  });

  it('without a key, refuses an edit that was not resealed, and a keyed seal it cannot check', () => {
    const db = traceDb(fresh());
    sealRun(db, 'run_1', 1, { key: null, patternsPath: null });
    db.exec('DELETE FROM reps WHERE b = 1');
    expect(() => checkSeal(db, db.name, 'run_1', { key: null, patternsPath: null })).toThrow(/content does not match the seal written when run run_1 finished \(sha256 /);
    sealRun(db, 'run_1', 2, { key: KEY, patternsPath: null });
    expect(() => checkSeal(db, db.name, 'run_1', { key: null, patternsPath: null })).toThrow(/sealed with METIS_SEAL_KEY \(HMAC-SHA256\); set the same METIS_SEAL_KEY to merge it/);
    db.close();
  });

  it('refuses a seal of the older SQLite-text format, saying to run the shard again with this version', () => {
    const db = traceDb(fresh());
    db.exec("CREATE TABLE bench_run_seal (run_id TEXT PRIMARY KEY, digest TEXT NOT NULL, sealed_at_us INTEGER NOT NULL); INSERT INTO bench_run_seal VALUES ('run_1', 'abc', 1)");
    expect(() => checkSeal(db, db.name, 'run_1', { key: null, patternsPath: null })).toThrow(/run run_1 was sealed by an older bench .*run the shard again with this version/);
    // Finalising again (a resume) replaces it with a seal of this format.
    sealRun(db, 'run_1', 2, { key: null, patternsPath: null });
    expect(() => checkSeal(db, db.name, 'run_1', { key: null, patternsPath: null })).not.toThrow();
    db.close();
  });

  it('refuses a pattern store edited after the run was sealed (a score of 1 and a negative spend), naming the store', () => {
    for (const key of [null, KEY]) {
      const dir = fresh();
      const db = traceDb(dir);
      const patternsPath = store(join(dir, 'shard.patterns.db'));
      sealRun(db, 'run_1', 1, { key, patternsPath });
      const s = new Database(patternsPath);
      s.exec('UPDATE outcomes SET success_score_mean = 1, sum_cost_usd_micros = -5000000');
      s.close();
      expect(() => checkSeal(db, db.name, 'run_1', { key, patternsPath })).toThrow(/shard\.patterns\.db: the pattern store's content does not match the one sealed with run run_1 in .*shard\.db/);
      db.close();
    }
  });

  it('refuses a pattern store beside a run that sealed none', () => {
    const dir = fresh();
    const db = traceDb(dir);
    sealRun(db, 'run_1', 1, { key: null, patternsPath: null });
    const patternsPath = store(join(dir, 'shard.patterns.db'));
    expect(() => checkSeal(db, db.name, 'run_1', { key: null, patternsPath })).toThrow(/shard\.patterns\.db: a pattern store beside .*shard\.db, but run run_1 sealed none/);
    db.close();
  });

  it('reads the key from METIS_SEAL_KEY; unset or empty (a secret a fork does not get) is no key', () => {
    expect(sealKeyFrom({})).toBeNull();
    expect(sealKeyFrom({ METIS_SEAL_KEY: '' })).toBeNull();
    expect(sealKeyFrom({ METIS_SEAL_KEY: 'k' })?.toString()).toBe('k');
  });
});
