import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { startViewServer, type ViewServer } from '../../harness/view/view-server.ts';
import { CHROMIUM, launchBrowser, recordForeignRequests, SCREENSHOT_DIR } from '../support/browser.ts';
import { bench, tempDir } from '../support/cli.ts';

const ENV = { PATH: process.env.PATH };

if (!CHROMIUM) console.warn('NOTICE: bench view browser test skipped: no chromium at /usr/bin/chromium (apt-get install chromium; .ci/run installs it as root)');

describe.skipIf(!CHROMIUM)('bench view in a real browser', () => {
  let browser: Browser;
  let server: ViewServer;
  let db: string;
  let digest: string;

  beforeAll(async () => {
    db = join(tempDir(), 'run.db');
    const r = await bench(['run', '--workload', 'fix-a-bug-small', '--quiet', '--db-path', db], { env: ENV });
    expect([0, 1], r.stderr).toContain(r.code);
    digest = createHash('sha256').update(readFileSync(db)).digest('hex');
    server = await startViewServer({ dbPaths: [db], host: '127.0.0.1', port: 0 });
    browser = await launchBrowser();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('walks runs → report → one rep, with no request off the machine and the DB untouched', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const foreign = recordForeignRequests(page);
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(server.url);
    await page.locator('a[href^="#/run/"]').first().click();
    await page.getByText('fix-a-bug-small').first().waitFor();
    await page.screenshot({ path: join(SCREENSHOT_DIR, 'view-report.png'), fullPage: true });
    await page.locator('a.chip').first().click();
    await page.getByText('routing decision').first().waitFor();
    await expect(page.getByText(/Hidden check: (passed|failed)/).count()).resolves.toBe(1);
    await expect(page.locator('.turn').count()).resolves.toBeGreaterThan(0);
    await page.screenshot({ path: join(SCREENSHOT_DIR, 'view-rep.png'), fullPage: true });
    expect(errors).toEqual([]);
    expect(foreign).toEqual([]);
    expect(createHash('sha256').update(readFileSync(db)).digest('hex')).toBe(digest);
  }, 120_000);
});
