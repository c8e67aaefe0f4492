import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderReportTable } from '../../harness/report/render-table.ts';
import { WORKLOAD_TABLE_HEAD } from '../../harness/report/report-sections.ts';
import type { BenchReport } from '../../schemas/types/report.ts';
import { bench, REPO_ROOT, tempDir } from '../support/cli.ts';

const ENV = { PATH: process.env.PATH };
const FIXTURES = join(REPO_ROOT, 'test/fixtures/reports');
const fixturePath = (name: 'single' | 'a3') => join(FIXTURES, `${name}.json`);
const fixture = (name: 'single' | 'a3') => JSON.parse(readFileSync(fixturePath(name), 'utf8')) as BenchReport;
const svgCount = (html: string) => html.match(/<svg[\s>]/g)?.length ?? 0;

/** A runs folder under a fresh cwd holding copies of the single fixture with these run ids and start times. */
function runsFolder(reports: { file: string; runId: string; startedAt: string }[]): string {
  const cwd = tempDir();
  const dir = join(cwd, 'reports', '.runs');
  mkdirSync(dir, { recursive: true });
  for (const r of reports) {
    const report = fixture('single');
    report.provenance.run_id = r.runId;
    report.provenance.started_at = r.startedAt;
    writeFileSync(join(dir, r.file), JSON.stringify(report, null, 2));
  }
  return cwd;
}

describe('bench report', () => {
  it('--format table prints what bench run prints', async () => {
    const r = await bench(['report', fixturePath('a3')], { env: ENV });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(renderReportTable(fixture('a3'), { json: fixturePath('a3') }));
  });

  it('--format md has the banner, the per-workload header and one row per workload result', async () => {
    for (const name of ['single', 'a3'] as const) {
      const r = await bench(['report', fixturePath(name), '--format', 'md'], { env: ENV });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout.startsWith('> **SIMULATED PROVIDER')).toBe(true);
      const lines = r.stdout.split('\n');
      const head = lines.findIndex((l) => l === `| ${WORKLOAD_TABLE_HEAD.join(' | ')} |`);
      expect(head).toBeGreaterThan(0);
      const after = lines.slice(head + 2);
      const rows = after.slice(0, after.findIndex((l) => !l.startsWith('|')));
      expect(rows).toHaveLength(fixture(name).workloads.length);
      expect(r.stdout.includes('## A3 protocol')).toBe(name === 'a3');
    }
  });

  it('--format html --out writes one self-contained page with the charts', async () => {
    const dir = tempDir();
    // single: main chart + cost per workload; a3: main chart + 3 workload small multiples + slot 4 by pass.
    for (const [name, charts] of [['single', 2], ['a3', 5]] as const) {
      const out = join(dir, 'nested', `${name}.html`);
      const r = await bench(['report', fixturePath(name), '--format', 'html', '--out', out], { env: ENV });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toBe('');
      const html = readFileSync(out, 'utf8');
      expect(svgCount(html)).toBe(charts);
      expect(html).toContain('<div class="banner" role="note">SIMULATED PROVIDER');
      expect(html.replace(/\sxmlns(:\w+)?="http:\/\/www\.w3\.org\/[^"]*"/g, '')).not.toMatch(/https?:\/\//);
    }
  });

  it('--format json round-trips the report exactly', async () => {
    const r = await bench(['report', fixturePath('a3'), '--format', 'json'], { env: ENV });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(fixture('a3'));
    expect(`${r.stdout}\n`).toBe(readFileSync(fixturePath('a3'), 'utf8'));
  });

  it('with no RUN picks the newest report in --runs-dir by started_at; a run id and a trace DB path work too', async () => {
    const cwd = runsFolder([
      { file: 'z-old.json', runId: 'run_OLD', startedAt: '2026-05-13T10:22:08.000001Z' },
      { file: 'a-new.json', runId: 'run_NEW', startedAt: '2026-05-14T00:00:00.000000Z' },
    ]);
    const latest = await bench(['report', '--format', 'json'], { cwd, env: ENV });
    expect(latest.code, latest.stderr).toBe(0);
    expect((JSON.parse(latest.stdout) as BenchReport).provenance.run_id).toBe('run_NEW');
    const byId = await bench(['report', 'run_OLD', '--format', 'json'], { cwd, env: ENV });
    expect((JSON.parse(byId.stdout) as BenchReport).provenance.run_id).toBe('run_OLD');
    const byDb = await bench(['report', 'reports/.runs/z-old.db', '--format', 'json'], { cwd, env: ENV });
    expect((JSON.parse(byDb.stdout) as BenchReport).provenance.run_id).toBe('run_OLD');
    const other = await bench(['report', '--runs-dir', join(cwd, 'elsewhere')], { cwd, env: ENV });
    expect(other.code).toBe(2);
    expect(other.stderr).toContain(`${join(cwd, 'elsewhere')}: no report JSON found`);
  });

  it('a missing or invalid report is exit 2 naming the file and the first problem', async () => {
    const dir = tempDir();
    const missing = join(dir, 'nope.json');
    const r1 = await bench(['report', missing], { env: ENV });
    expect(r1.code).toBe(2);
    expect(r1.stderr).toBe(`error: ${missing}: no such report file`);

    const bad = fixture('single') as unknown as { provenance: Record<string, unknown> };
    bad.provenance.seed_passes = 0;
    const invalid = join(dir, 'bad.json');
    writeFileSync(invalid, JSON.stringify(bad));
    const r2 = await bench(['report', invalid, '--format', 'md'], { env: ENV });
    expect(r2.code).toBe(2);
    expect(r2.stdout).toBe('');
    expect(r2.stderr).toBe(`error: ${invalid}: not a valid bench report (schemas/report.schema.json): /provenance/seed_passes: must be >= 1`);

    const r3 = await bench(['report', fixturePath('single'), '--format', 'pdf'], { env: ENV });
    expect(r3.code).toBe(2);
  });

  it('renders the report of a fresh bench run found by default in the runs folder', async () => {
    const cwd = tempDir();
    const db = join(cwd, 'reports', '.runs', 'fresh.db');
    const run = await bench(['run', '--workload', 'fix-a-bug-small', '--workloads-dir', join(REPO_ROOT, 'workloads'), '--db-path', db], { cwd, env: ENV });
    expect([0, 1], run.stderr).toContain(run.code);
    expect(existsSync(db.replace(/\.db$/, '.json'))).toBe(true);
    // A non-report JSON in the same folder (a future compare artifact) is not mistaken for a run.
    copyFileSync(join(REPO_ROOT, 'package.json'), join(cwd, 'reports', '.runs', 'zzz-not-a-report.json'));
    const r = await bench(['report', '--format', 'md'], { cwd, env: ENV });
    expect(r.code, r.stderr).toBe(0);
    // Markdown carries no machine-local path: the DB relative to the project.
    expect(r.stdout).toContain(`| trace DB | reports/.runs/${basename(db)} |`);
    expect(r.stdout).not.toContain(db);
    expect(r.stdout).toMatch(/\n\| fix-a-bug-small \| single \| 1 \|/);
  });

  it('--image writes the headline card and the main chart as SVG for slides', async () => {
    const out = join(tempDir(), 'slides');
    const r = await bench(['report', fixturePath('a3'), '--format', 'md', '--image', out], { env: ENV });
    expect(r.code, r.stderr).toBe(0);
    const card = readFileSync(join(out, 'headline-card.svg'), 'utf8');
    const chart = readFileSync(join(out, 'main-chart.svg'), 'utf8');
    expect(card).toMatch(/^<svg/);
    expect(card).toContain(fixture('a3').headline!.verdict.split(' ').slice(0, 3).join(' '));
    for (const arm of ['A: always', 'B: always', 'C: routed']) expect(chart).toContain(arm);
  });
});
