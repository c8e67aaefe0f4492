import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { loadReport } from '../../harness/report/find-report.ts';
import { renderReportHtml } from '../../harness/report/render-html.ts';
import { renderMatrixHtml } from '../../harness/matrix/render-matrix.ts';
import { verdictLead } from '../../harness/report/verdict-lead.ts';
import type { MatrixReport } from '../../schemas/types/matrix-report.ts';
import { brokenIntervals, CHROMIUM, clippedLabels, launchBrowser, overflowingChartText, recordForeignRequests, SCREENSHOT_DIR } from '../support/browser.ts';
import { REPO_ROOT, tempDir } from '../support/cli.ts';

const fixtureReport = (name: string) => loadReport(join(REPO_ROOT, 'test/fixtures/reports', `${name}.json`)).report;

if (!CHROMIUM) console.warn('NOTICE: HTML report browser test skipped: no chromium at /usr/bin/chromium (apt-get install chromium; .ci/run installs it as root)');

describe.skipIf(!CHROMIUM)('HTML report in a real browser', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
  });

  for (const name of ['a3', 'single'] as const) {
    it(`${name}: headline on top, every chart drawn, no label outside its chart, no network`, async () => {
      const report = loadReport(join(REPO_ROOT, 'test/fixtures/reports', `${name}.json`)).report;
      const file = join(tempDir(), `${name}.html`);
      writeFileSync(file, renderReportHtml(report));
      for (const scheme of ['light', 'dark'] as const) {
        const page = await browser.newPage({ viewport: { width: 1280, height: 800 }, colorScheme: scheme });
        const foreign = recordForeignRequests(page);
        await page.goto(pathToFileURL(file).toString());
        // The card's verdict is the text headline's first sentence; the rest is under it.
        const verdict = (await page.locator('.card .verdict').textContent()) ?? '';
        expect(verdict).toBe(verdictLead(report.headline!.verdict).lead);
        // The card is in the first screen.
        const box = await page.locator('.card').boundingBox();
        expect(box!.y).toBeLessThan(300);
        const sizes = await page.locator('figure svg').evaluateAll((svgs) => svgs.map((s) => ({ w: s.getBoundingClientRect().width, h: s.getBoundingClientRect().height, shapes: s.querySelectorAll('path, rect, circle, text').length })));
        expect(sizes.length).toBeGreaterThan(0);
        for (const s of sizes) {
          expect(s.w).toBeGreaterThan(100);
          expect(s.h).toBeGreaterThan(100);
          expect(s.shapes).toBeGreaterThan(3);
        }
        expect(await overflowingChartText(page)).toEqual([]);
        expect(foreign).toEqual([]);
        await page.screenshot({ path: join(SCREENSHOT_DIR, `report-${name}-${scheme}.png`), fullPage: true });
        if (scheme === 'light') await page.locator('#answer').screenshot({ path: join(SCREENSHOT_DIR, `report-${name}-headline.png`) });
        await page.close();
      }
    }, 120_000);
  }

  // Every kind of report with HTML (bench compare has none), at a laptop's width and a narrow window's.
  const pages: Record<string, () => string> = {
    single: () => renderReportHtml(fixtureReport('single')),
    a3: () => renderReportHtml(fixtureReport('a3')),
    'a3 with the model-based optimum': () => renderReportHtml(fixtureReport('a3-oracle')),
    signal: () => renderReportHtml(fixtureReport('signal')),
    matrix: () => renderMatrixHtml(JSON.parse(readFileSync(join(REPO_ROOT, 'test/fixtures/reports/matrix-gsm8k.json'), 'utf8')) as MatrixReport),
  };
  for (const [kind, html] of Object.entries(pages)) {
    it(`${kind}: no label clipped or drawn over another, no interval broken, at 1280, 800 and 600 px`, async () => {
      const file = join(tempDir(), 'report.html');
      writeFileSync(file, html());
      for (const width of [1280, 800, 600]) {
        const page = await browser.newPage({ viewport: { width, height: 900 } });
        await page.goto(pathToFileURL(file).toString());
        expect({ width, clipped: await clippedLabels(page) }).toEqual({ width, clipped: [] });
        expect({ width, broken: await brokenIntervals(page) }).toEqual({ width, broken: [] });
        await page.close();
      }
    }, 120_000);
  }

  it('prints to PDF at A4 with the answer on its own first page', async () => {
    const report = loadReport(join(REPO_ROOT, 'test/fixtures/reports', 'a3.json')).report;
    const file = join(tempDir(), 'a3.html');
    writeFileSync(file, renderReportHtml(report));
    const page = await browser.newPage();
    await page.goto(pathToFileURL(file).toString());
    const pdf = await page.pdf({ format: 'A4', landscape: true, preferCSSPageSize: true });
    expect(pdf.subarray(0, 4).toString()).toBe('%PDF');
    writeFileSync(join(SCREENSHOT_DIR, 'report-a3.pdf'), pdf);
    await page.close();
  }, 120_000);
});
