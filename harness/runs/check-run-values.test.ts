import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { eventCatalogDigest } from '../../runtime/events/index.ts';
import { checkBenchRunRow, checkRunRows, checkWorkloadRunRow, eventChecksStamp, jsonVouched, type BenchRunRow, type WorkloadRunRow } from './check-run-values.ts';

/** Text built from JSON's tokens and the characters where parsers differ (NUL, other whitespace, surrogates, JSON5). */
const jsonish = fc
  .array(
    fc.constantFrom('{', '}', '[', ']', ',', ':', '"', '\\', 'u', '0', '1', '9', '-', '+', '.', 'e', 'E', 'a', 'true', 'null', ' ', '\t', '\n', '\r', '\u000b', '\u00a0', '\0', 'é', '\ud800', 'NaN', 'Infinity', '"a"', '\\u0000', '\u2028', '/', "'", 'x'),
    { maxLength: 14 },
  )
  .map((a) => a.join(''));

/**
 * A value a tampered cell can hold: NULL, integers (bound as BigInt: better-sqlite3 binds a number as a real),
 * reals (whole, fractional, out of range, infinite), JSON-ish text, JSON as a blob.
 */
const cell = fc.oneof(
  fc.constant(null),
  fc.integer({ min: -3, max: 3 }).map(BigInt),
  fc.constantFrom(0, 1, 0.5, 1.5, 3.0, -0, -0.5, Infinity, -Infinity, 2 ** 60),
  jsonish,
  fc.constantFrom('{}', '[]', '{"a":1}', '["s0"]', '{"a":1}\0x', '[1]'.padStart(1200, '[').padEnd(2397, ']')),
  fc.constant(Buffer.from('{}')),
);

const BENCH_COLUMNS = ['provenance_json', 'warnings_json', 'recording_errors_json'];
const WORKLOAD_COLUMNS = ['rep', 'turns', 'started_at_us', 'ended_at_us', 'score', 'confidence', 'session_ids_json', 'check_json', 'assertions_json'];

/** Tables without column affinity, so every value stays as given; rows of run `r` and of another run. */
function harnessDb(bench: readonly (readonly unknown[])[], workload: readonly (readonly unknown[])[]): Database.Database {
  const db = new Database(':memory:');
  // pass and workload: a run's rows are read in report order (pass, workload, rep), here not the table's order.
  db.exec(`CREATE TABLE bench_runs (run_id, ${BENCH_COLUMNS.join(', ')}); CREATE TABLE workload_runs (run_id, id, pass, workload, ${WORKLOAD_COLUMNS.join(', ')})`);
  const b = db.prepare(`INSERT INTO bench_runs VALUES (?, ${BENCH_COLUMNS.map(() => '?').join(', ')})`);
  const w = db.prepare(`INSERT INTO workload_runs VALUES (?, ?, ?, ?, ${WORKLOAD_COLUMNS.map(() => '?').join(', ')})`);
  bench.forEach((v, k) => b.run(k % 3 === 2 ? 'other' : 'r', ...v));
  workload.forEach((v, k) => w.run(k % 3 === 2 ? 'other' : 'r', `w${k}`, `p${k % 2}`, `w${5 - k}`, ...v));
  return db;
}

/** The message checkRunRows throws, or null. */
function outcome(f: () => void): string | null {
  try {
    f();
    return null;
  } catch (e) {
    return (e as Error).message;
  }
}

/** The check as it was: every row of the run read into JavaScript and checked, in table order. */
function checkEveryRow(db: Database.Database, run: string | null): void {
  const where = run === null ? '' : ' WHERE run_id = ?';
  const params = run === null ? [] : [run];
  for (const r of db.prepare(`SELECT run_id, ${BENCH_COLUMNS.join(', ')} FROM bench_runs${where}`).all(...params)) checkBenchRunRow('db', r as BenchRunRow);
  for (const r of db.prepare(`SELECT id, ${WORKLOAD_COLUMNS.join(', ')} FROM workload_runs${where}`).all(...params)) checkWorkloadRunRow('db', r as WorkloadRunRow);
}

describe("the harness's rows of a run", () => {
  it('every text SQLite vouches for as JSON parses with JSON.parse (fuzz)', () => {
    const vouched = new Database(':memory:').prepare(`WITH v(x) AS (SELECT ?) SELECT ${jsonVouched('x')} FROM v`).pluck();
    let accepted = 0;
    fc.assert(
      fc.property(jsonish, (text) => {
        if (!vouched.get(text)) return;
        accepted++;
        expect(() => JSON.parse(text)).not.toThrow();
      }),
      { seed: 2035, numRuns: 50_000 },
    );
    // The fuzz reaches the texts it is about: some vouched for, and the one SQLite's parser alone accepts refused.
    expect(accepted).toBeGreaterThan(500);
    expect(vouched.get('{"a":1}\0x')).toBe(0);
  });

  it('are refused with the same first row, field and problem as when every row is read and checked, or pass as they did (property)', () => {
    // A good row with one value (or none) replaced, so that a refused row often follows rows vouched for.
    const mutated = (good: readonly unknown[]) => fc.tuple(fc.nat(good.length), cell).map(([k, v]) => good.map((g, i) => (i === k ? v : g)));
    const benchRow = mutated(['{}', '[]', '[]']);
    const workloadRow = mutated([0n, 1n, 5n, 9n, 0.5, 1n, '["s0"]', null, '[]']);
    fc.assert(
      fc.property(fc.array(benchRow, { maxLength: 4 }), fc.array(workloadRow, { maxLength: 6 }), fc.boolean(), (bench, workload, whole) => {
        const db = harnessDb(bench, workload);
        const run = whole ? null : 'r';
        expect(outcome(() => checkRunRows(db, 'db', run))).toBe(outcome(() => checkEveryRow(db, run)));
      }),
      { seed: 2036, numRuns: 2000 },
    );
  });
});

describe('the stamp of the event checks', () => {
  afterEach(() => vi.unstubAllEnvs());

  it("names the checks' version and the catalog's, from the catalog's files; while dist/ is fresh (a cache folder), it is kept and read back instead of hashing those files again", () => {
    vi.stubEnv('METIS_BENCH_CACHE_DIR', '');
    const catalog = eventCatalogDigest();
    const stamp = `event-checks/1 catalog/${catalog.version} sha256:${catalog.digest}`;
    expect(eventChecksStamp()).toBe(stamp);
    const cache = mkdtempSync(join(tmpdir(), 'checks-stamp-'));
    vi.stubEnv('METIS_BENCH_CACHE_DIR', cache);
    expect(eventChecksStamp()).toBe(stamp);
    const kept = readdirSync(join(cache, 'parsed')).filter((f) => f.startsWith('event-checks-stamp-'));
    expect(kept).toHaveLength(1);
    // What the next start reads is the kept entry: a stamp changed there is what it answers.
    const at = join(cache, 'parsed', kept[0]!);
    writeFileSync(at, readFileSync(at, 'utf8').replace(stamp, 'kept stamp'));
    expect(eventChecksStamp()).toBe('kept stamp');
  });
});
