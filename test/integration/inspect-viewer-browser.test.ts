import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { LISTING_FILE } from '../../harness/export/inspect/export-inspect.ts';
import { CHROMIUM, launchBrowser, recordForeignRequests, SCREENSHOT_DIR } from '../support/browser.ts';
import { bench, tempDir } from '../support/cli.ts';
import { buildInspectViewer, serveStatic } from '../support/inspect-viewer.ts';

const ENV = { PATH: process.env.PATH };
type Log = { eval: { task: string; model: string }; samples: { id: string; input: string; scores: { hidden_check: { value: number } } }[] };

if (!CHROMIUM) console.warn('NOTICE: Inspect viewer browser test skipped: no chromium at /usr/bin/chromium (apt-get install chromium; .ci/run installs it as root)');

// An exported run opened in Inspect's own log viewer (@metrevals/inspect-log-viewer, a devDependency for this
// test only), served with the logs from one loopback server: what a user sees after `bench export --format inspect`.
describe.skipIf(!CHROMIUM)("bench export --format inspect, opened in Inspect's log viewer", () => {
  let browser: Browser;
  let site: { url: string; close(): Promise<void> };
  let file: string;
  let log: Log;

  beforeAll(async () => {
    const dir = tempDir();
    const db = join(dir, 'run.db');
    const r = await bench(['run', '--workload', 'fix-a-bug-small', '--workload', 'multi-step-with-delegation', '--quiet', '--db-path', db], { env: ENV });
    expect([0, 1], r.stderr).toContain(r.code);
    const root = join(dir, 'site');
    mkdirSync(root);
    const e = await bench(['export', '--format', 'inspect', '--db-path', db, '--out', join(root, 'logs'), '--include-content'], { env: ENV });
    expect(e.code, e.stderr).toBe(0);
    file = readdirSync(join(root, 'logs')).find((f) => f !== LISTING_FILE)!;
    log = JSON.parse(readFileSync(join(root, 'logs', file!), 'utf8')) as Log;
    await buildInspectViewer(root);
    site = await serveStatic(root);
    browser = await launchBrowser();
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
    await site?.close();
  });

  /** A fresh page (the viewer caches logs in the browser's storage; a new context starts empty). */
  async function freshPage(): Promise<{ page: Page; foreign: string[]; errors: string[] }> {
    const page = await (await browser.newContext({ viewport: { width: 1400, height: 900 } })).newPage();
    const foreign = recordForeignRequests(page);
    const errors: string[] = [];
    page.on('pageerror', (x) => errors.push(String(x)));
    return { page, foreign, errors };
  }

  it('lists the log from listing.json alone: task, model and status, before any log is opened', async () => {
    const { page, foreign, errors } = await freshPage();
    await page.goto(`${site.url}index.html?log_dir=logs#/logs`);
    const row = page.getByRole('row').filter({ hasText: file });
    await row.waitFor({ timeout: 60_000 });
    // Read from the listing: a listing that held whole headers showed a name guessed from the file and '-' here.
    await row.getByText(log.eval.task, { exact: true }).waitFor({ timeout: 30_000 });
    await row.getByText(log.eval.model, { exact: true }).waitFor();
    await page.screenshot({ path: join(SCREENSHOT_DIR, 'inspect-listing.png') });
    expect(errors).toEqual([]);
    expect(foreign).toEqual([]);
  }, 120_000);

  it("opens the log: every sample's id, input and hidden-check score on screen", async () => {
    const { page, foreign, errors } = await freshPage();
    await page.goto(`${site.url}index.html?log_dir=logs#/logs`);
    await page.getByRole('row').filter({ hasText: file }).getByText(log.eval.task, { exact: true }).click({ timeout: 60_000 });
    await page.getByText('hidden_check', { exact: false }).first().waitFor({ timeout: 60_000 });
    expect(log.samples.map((s) => s.id).sort()).toEqual(['fix-a-bug-small', 'multi-step-with-delegation']);
    for (const s of log.samples) {
      // One row per sample: its id, the first words of its input and its score, as the log holds them.
      const row = page.locator('div, tr').filter({ hasText: s.id }).filter({ hasText: s.input.slice(0, 40) }).last();
      await row.waitFor({ timeout: 30_000 });
      expect(await row.innerText()).toMatch(new RegExp(`(^|\\s)${s.scores.hidden_check.value}(\\s|$)`));
    }
    await page.screenshot({ path: join(SCREENSHOT_DIR, 'inspect-samples.png') });
    expect(errors).toEqual([]);
    expect(foreign).toEqual([]);
  }, 120_000);
});
