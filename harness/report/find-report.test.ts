import { mkdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { BenchReport } from '../../schemas/types/report.ts';
import { REPO_ROOT, tempDir } from '../../test/support/temp.ts';
import { SetupError } from '../errors.ts';
import { findReport, latestReportPath, loadReport } from './find-report.ts';

const FIXTURE = join(REPO_ROOT, 'test/fixtures/reports/single.json');
const fixture = (): BenchReport => JSON.parse(readFileSync(FIXTURE, 'utf8')) as BenchReport;

/** Writes a copy of the fixture with this run id and start time, and sets its mtime. */
function writeReport(dir: string, name: string, runId: string, startedAt: string, mtimeS: number): string {
  const r = fixture();
  r.provenance.run_id = runId;
  r.provenance.started_at = startedAt;
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify(r));
  utimesSync(path, mtimeS, mtimeS);
  return path;
}

function runsDir(): string {
  const dir = join(tempDir(), 'reports', '.runs');
  mkdirSync(dir, { recursive: true });
  return dir;
}

describe('findReport', () => {
  it('defaults to the newest report by provenance.started_at, not by file mtime', () => {
    const dir = runsDir();
    // The newer run has the older mtime (e.g. a downloaded artifact), and they differ only below the millisecond.
    writeReport(dir, 'b-older.json', 'run_OLD', '2026-05-13T10:22:08.123400Z', 2_000_000_000);
    const newest = writeReport(dir, 'a-newer.json', 'run_NEW', '2026-05-13T10:22:08.123456Z', 1_000_000_000);
    writeFileSync(join(dir, 'compare.json'), JSON.stringify({ kind: 'not a report' }));
    writeFileSync(join(dir, 'half-written.json'), '{"report_version": 1, "provenance": {');
    expect(latestReportPath(dir)).toBe(newest);
    expect(findReport(undefined, { cwd: join(dir, '..', '..'), runsDir: 'reports/.runs' }).report.provenance.run_id).toBe('run_NEW');
  });

  it('resolves a run id, a report path and a trace DB path (the JSON beside it)', () => {
    const dir = runsDir();
    const a = writeReport(dir, 'bench-a.json', 'run_A', '2026-05-13T10:00:00.000000Z', 1);
    writeReport(dir, 'bench-b.json', 'run_B', '2026-05-14T10:00:00.000000Z', 1);
    const opts = { cwd: dir, runsDir: '.' };
    expect(findReport('run_A', opts).path).toBe(a);
    expect(findReport('bench-a.json', opts).path).toBe(a);
    expect(findReport(a, opts).report.provenance.run_id).toBe('run_A');
    expect(findReport('bench-a.db', opts).path).toBe(a);
  });

  it('names the file and the problem when a report is missing or invalid', () => {
    const dir = runsDir();
    const opts = { cwd: dir, runsDir: '.' };
    expect(() => findReport(undefined, opts)).toThrow(new SetupError(`${dir}: no report JSON found (run \`bench run\` first, or name a report: bench report <run-id|report.json|trace.db>)`));
    expect(() => findReport('run_NOPE', opts)).toThrow(/no report for run 'run_NOPE'/);
    expect(() => findReport('gone.json', opts)).toThrow(new SetupError(`${join(dir, 'gone.json')}: no such report file`));
    expect(() => findReport('gone.db', opts)).toThrow(`${join(dir, 'gone.json')}: no report JSON beside the trace DB`);

    const bad = fixture() as unknown as Record<string, unknown>;
    delete bad.aggregate;
    writeFileSync(join(dir, 'bad.json'), JSON.stringify(bad));
    expect(() => loadReport(join(dir, 'bad.json'))).toThrow(`${join(dir, 'bad.json')}: not a valid bench report (schemas/report.schema.json): (root): must have required property 'aggregate'`);
    writeFileSync(join(dir, 'junk.json'), 'not json');
    expect(() => loadReport(join(dir, 'junk.json'))).toThrow(new RegExp(`^${join(dir, 'junk.json')}: not JSON`));
  });

  it('a report written before the solved-rate fields says how to rebuild it from its trace DB', () => {
    const dir = tempDir();
    const old = fixture() as unknown as Record<string, unknown>;
    delete old.headline;
    for (const w of (old as unknown as BenchReport).workloads) for (const r of w.reps) delete (r as Partial<typeof r>).outcome;
    writeFileSync(join(dir, 'old.json'), JSON.stringify(old));
    expect(() => loadReport(join(dir, 'old.json'))).toThrow(/predates the solved-rate fields: rebuild it from its trace DB with `npx analyze --skip-execute/);
  });

  it('accepts the stored fixtures as valid reports', () => {
    for (const name of ['single', 'a3']) expect(loadReport(join(REPO_ROOT, 'test/fixtures/reports', `${name}.json`)).report.report_version).toBe(1);
  });
});

describe('the latest run is the latest benchmark run', () => {
  it('skips a newer `bench signal` run unless --kind signal asks for it, and says so when only signal runs exist', () => {
    const dir = runsDir();
    const bench = writeReport(dir, 'bench.json', 'run_BENCH', '2026-05-13T10:00:00.000000Z', 1_000_000_000);
    const signal = fixture();
    signal.provenance.run_id = 'run_SIGNAL';
    signal.provenance.started_at = '2026-05-13T11:00:00.000000Z';
    signal.provenance.protocol = 'signal';
    writeFileSync(join(dir, 'signal.json'), JSON.stringify(signal));
    writeFileSync(join(dir, 'matrix.json'), JSON.stringify({ kind: 'matrix', report_version: 1, provenance: { run_id: 'm', started_at: '2026-05-13T12:00:00.000000Z' } }));
    expect(latestReportPath(dir)).toBe(bench);
    expect(latestReportPath(dir, 'signal')).toBe(join(dir, 'signal.json'));
    const only = runsDir();
    writeFileSync(join(only, 'signal.json'), JSON.stringify(signal));
    expect(() => latestReportPath(only)).toThrow(/no report JSON found \(it holds 1 signal run\(s\): add --kind signal/);
  });
});
