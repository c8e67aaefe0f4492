import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { startViewServer, type ViewServer } from '../../harness/view/view-server.ts';
import { CHROMIUM, launchBrowser, recordForeignRequests, SCREENSHOT_DIR } from '../support/browser.ts';
import { bench, REPO_ROOT, tempDir } from '../support/cli.ts';

// `bench view` over the three kinds of run a runs folder holds: an agent run's trace DB, a matrix run's DB and a
// cache stream report (JSON, no DB). Each is listed and has its own page, with the commit it was run from.

const ENV = { PATH: process.env.PATH };
const FIXTURES = join(REPO_ROOT, 'test', 'fixtures', 'swebench');
let cwd = '';
let server: ViewServer;
const paths = { trace: '', matrix: '', streams: '' };

type Row = { db: number; kind: string; run_id: string; protocol: string; reps: number };

beforeAll(async () => {
  cwd = tempDir();
  mkdirSync(join(cwd, 'workloads'));
  const runs = join(cwd, 'reports', '.runs');
  paths.trace = join(runs, 'agent.db');
  paths.matrix = join(runs, 'matrix.db');
  paths.streams = join(runs, 'streams.json');
  const imp = await bench(['import', 'swebench-leaderboard', '--leaderboards', join(FIXTURES, 'leaderboards.json'), '--problems', join(FIXTURES, 'problems.jsonl'), '--out', join(cwd, 'workloads', 'swe-small')], { cwd, env: ENV });
  expect(imp.code, imp.stderr).toBe(0);
  const m = await bench(['run', '--workload', 'swe-small', '--workloads-dir', join(cwd, 'workloads'), '--folds', '3', '--cost-weights', '0,0.5', '--quiet', '--db-path', paths.matrix], { cwd, env: ENV });
  expect(m.code, m.stderr).toBe(0);
  const s = await bench(['run', '--workload', 'cache-adversarial', '--workloads-dir', join(REPO_ROOT, 'workloads'), '--quiet', '--json', paths.streams], { cwd, env: ENV });
  expect(s.code, s.stderr).toBe(0);
  const a = await bench(['run', '--workload', 'fix-a-bug-small', '--workloads-dir', join(REPO_ROOT, 'workloads'), '--quiet', '--db-path', paths.trace], { cwd, env: ENV });
  expect([0, 1], a.stderr).toContain(a.code);
  server = await startViewServer({ dbPaths: [paths.trace, paths.matrix, paths.streams], host: '127.0.0.1', port: 0 });
}, 300_000);

afterAll(async () => {
  await server?.close();
});

async function api<T>(path: string): Promise<T> {
  const res = await fetch(new URL(path, server.url));
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json()) as T;
}

describe('bench view lists matrix and stream runs beside agent runs', () => {
  it('lists all three, none as unreadable', async () => {
    const body = await api<{ runs: Row[]; errors: unknown[] }>('/api/runs');
    expect(body.errors).toEqual([]);
    expect(body.runs.map((r) => [r.db, r.kind])).toEqual([
      [0, 'trace'],
      [1, 'matrix'],
      [2, 'streams'],
    ]);
    expect(body.runs[1]!.reps).toBe(8);
  });

  it('serves the matrix summary: headline, chosen point per setting, baselines, the commit and the report command', async () => {
    const { runs } = await api<{ runs: Row[] }>('/api/runs');
    const m = await api<{ report: { headline: string; settings: { chosen: unknown; baselines: unknown }[] }; commit: string | null; command: string }>(`/api/matrix?db=1&run=${runs[1]!.run_id}`);
    expect(m.report.headline.length).toBeGreaterThan(20);
    expect(m.report.settings.length).toBeGreaterThan(0);
    expect(m.report.settings.some((s) => s.chosen && s.baselines)).toBe(true);
    expect(m.commit).toMatch(/^[0-9a-f]{40}( \(dirty\))?$/);
    expect(m.command).toBe(`npx bench report ${paths.matrix}`);
  });

  it('serves the stream summary with the commit', async () => {
    const s = await api<{ report: { streams: { name: string }[] }; commit: string | null }>('/api/streams?db=2');
    expect(s.report.streams.map((x) => x.name)).toEqual(['cache-adversarial']);
    expect(s.commit).toMatch(/^[0-9a-f]{40}( \(dirty\))?$/);
  });

  it("an agent run's report carries its commit (the run page read a field that does not exist and showed 'commit —')", async () => {
    const { runs } = await api<{ runs: Row[] }>('/api/runs');
    const r = await api<{ commit: string | null; provenance: { metis_commit_sha: string | null } }>(`/api/report?db=0&run=${runs[0]!.run_id}`);
    expect(r.provenance.metis_commit_sha).toMatch(/^[0-9a-f]{40}$/);
    expect(r.commit).toMatch(new RegExp(`^${r.provenance.metis_commit_sha!}( \\(dirty\\))?$`));
  });
});

describe.skipIf(!CHROMIUM)('bench view matrix and stream pages in a real browser', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('opens each kind of run from the list; every page shows its commit', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const foreign = recordForeignRequests(page);
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(server.url);
    await page.locator('a[href^="#/matrix/"]').first().click();
    await page.getByText('Baselines at the chosen point').waitFor();
    await page.getByText(/commit [0-9a-f]{40}/).first().waitFor();
    await expect(page.getByText('per cluster lookup').count()).resolves.toBeGreaterThan(0);
    await page.screenshot({ path: join(SCREENSHOT_DIR, 'view-matrix.png'), fullPage: true });
    await page.goto(server.url);
    await page.locator('a[href^="#/streams/"]').first().click();
    await page.getByRole('heading', { name: /cache-adversarial/ }).waitFor();
    await page.getByText(/commit [0-9a-f]{40}/).first().waitFor();
    await expect(page.getByRole('columnheader', { name: 'wrong hits' }).count()).resolves.toBeGreaterThan(0);
    await page.screenshot({ path: join(SCREENSHOT_DIR, 'view-streams.png'), fullPage: true });
    await page.goto(server.url);
    await page.locator('a[href^="#/run/"]').first().click();
    await page.getByText('fix-a-bug-small').first().waitFor();
    await page.getByText(/commit [0-9a-f]{40}/).first().waitFor();
    expect(errors).toEqual([]);
    expect(foreign).toEqual([]);
  }, 120_000);
});
