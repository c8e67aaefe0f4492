// reportFromDb reads the run's pattern store for cluster tightness: from the file, never opened for writing (a store
// in rollback-journal mode or of an older schema stays as it was), with the embeddings of the provider a v2 run used,
// so it agrees with the report the run wrote from its live store. A store it cannot read is said in the report's
// warnings, not shown as a store of no fingerprints; one named on the command line that cannot be read is refused.
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { sectionFor } from '../../harness/protocols/report-section.ts';
import { openTraceDbReadOnly, reportFromDb } from '../../harness/report/report-from-db.ts';
import { defaultRoutingConfig } from '../../runtime/routing/routing-config.ts';
import type * as RoutingConfigModule from '../../runtime/routing/routing-config.ts';
import type { BenchReport } from '../../schemas/types/report.ts';
import { tempDir } from '../support/cli.ts';
import { sharedRun } from '../support/shared-run.ts';

vi.mock('../../runtime/routing/routing-config.ts', async (importOriginal) => {
  const m = await importOriginal<typeof RoutingConfigModule>();
  return { ...m, defaultRoutingConfig: vi.fn(m.defaultRoutingConfig) };
});

const reportOf = (db: string, patternsDbPath?: string) => {
  const h = openTraceDbReadOnly(db, { values: 'per-run' });
  try {
    return reportFromDb(h, db, { sectionOf: sectionFor, ...(patternsDbPath ? { patternsDbPath } : {}) });
  } finally {
    h.close();
  }
};

const tightness = (r: BenchReport) => r.protocol_metrics!.cluster_tightness;
const digest = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');
/** The report the run itself wrote beside its DB, from the store it had open. */
const runReport = (db: string) => JSON.parse(readFileSync(db.replace(/\.db$/, '.json'), 'utf8')) as BenchReport;

describe('reportFromDb and the pattern store', () => {
  let v1: string;
  let v2: string;
  beforeAll(async () => {
    // A3 runs of two workloads (a few seconds each): the protocol that reports tightness, with pairs across workloads.
    const a3 = ['--protocol', 'a3', '--workload', 'fix-a-bug-small', '--workload', 'write-a-doc-from-notes', '--quiet'];
    v1 = await sharedRun(a3, { PATH: process.env.PATH });
    v2 = await sharedRun([...a3, '--fingerprint-version', 'v2'], { PATH: process.env.PATH });
  }, 300_000);

  it('a v1 store: the tightness the run reported, without building the routing defaults', () => {
    vi.mocked(defaultRoutingConfig).mockClear();
    const report = reportOf(v1);
    expect(report.provenance.fingerprint_version).toBe('v1');
    expect(existsSync(report.provenance.patterns_db_path!)).toBe(true);
    expect(tightness(report).v1!.fingerprints).toBeGreaterThan(0);
    expect(tightness(report)).toEqual(tightness(runReport(v1)));
    expect(defaultRoutingConfig).not.toHaveBeenCalled();
  });

  it("a v2 store: both views as the run reported them, blending the run's stored embeddings", () => {
    vi.mocked(defaultRoutingConfig).mockClear();
    const report = reportOf(v2);
    expect(report.provenance.fingerprint_version).toBe('v2');
    const t = tightness(report);
    expect(t.v2!.fingerprints).toBeGreaterThan(0);
    // The embeddings were read: the blended figure is not the structural one under another name.
    expect(t.v2!.intra).not.toBe(t.v1!.intra);
    expect(t).toEqual(tightness(runReport(v2)));
    // Nothing to size: the store is read, not opened with an embedding cache.
    expect(defaultRoutingConfig).not.toHaveBeenCalled();
  });

  it('leaves the store as it was: not switched to WAL, not migrated, no file beside it', () => {
    const dir = tempDir('patterns-ro-');
    const store = join(dir, 'p.db');
    copyFileSync(reportOf(v1).provenance.patterns_db_path!, store);
    // Rollback-journal mode and an older schema stamp: the store's own open would rewrite both.
    const w = new Database(store);
    w.pragma('journal_mode = DELETE');
    w.pragma('user_version = 0');
    w.close();
    const before = digest(store);
    const report = reportOf(v1, store);
    expect(tightness(report)).toEqual(tightness(reportOf(v1)));
    expect(digest(store)).toBe(before);
    expect(readdirSync(dir)).toEqual(['p.db']);
    const r = new Database(store, { readonly: true });
    expect([r.pragma('journal_mode', { simple: true }), r.pragma('user_version', { simple: true })]).toEqual(['delete', 0]);
    r.close();
  });

  it("says so when the run's recorded store cannot be read, instead of reporting no fingerprints", () => {
    const garbage = join(tempDir('patterns-bad-'), 'run.patterns.db');
    writeFileSync(garbage, 'not a database, but long enough to look like one to a careless reader'.repeat(80));
    // The run's private copy, pointed at the unreadable store.
    const w = new Database(v1);
    w.prepare("UPDATE bench_runs SET provenance_json = json_set(provenance_json, '$.patterns_db_path', ?)").run(garbage);
    w.close();
    const report = reportOf(v1);
    expect(report.provenance.patterns_db_path).toBe(garbage);
    expect(tightness(report).v1).toBeNull();
    expect(report.warnings).toContainEqual(expect.stringMatching(/^cluster tightness is not reported: the pattern store .*run\.patterns\.db: is not a SQLite database/));
  });

  it('refuses a --patterns-db-path that is missing or unreadable', () => {
    const dir = tempDir('patterns-flag-');
    expect(() => reportOf(v2, join(dir, 'typo.db'))).toThrow(/--patterns-db-path .*typo\.db: no such file/);
    const empty = join(dir, 'empty.db');
    new Database(empty).close();
    expect(() => reportOf(v2, empty)).toThrow(/--patterns-db-path: the pattern store .*empty\.db: holds no pattern store \(no fingerprints table/);
  });
});
