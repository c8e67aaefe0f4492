import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { REPO_ROOT } from './temp.ts';

/** Debian's chromium, when installed (`.ci/run` installs it as root); browser tests skip with a notice otherwise. */
export const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p)) ?? null;

/** Where browser tests leave their screenshots (git-ignored). */
export const SCREENSHOT_DIR = join(REPO_ROOT, 'test-output', 'browser');

/** Headless chromium with the flags that keep it off the network on this machine. */
export async function launchBrowser(): Promise<Browser> {
  if (!CHROMIUM) throw new Error('no chromium');
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

/** Every request the page makes whose host is not loopback (a self-contained page makes none). */
export function recordForeignRequests(page: Page): string[] {
  const foreign: string[] = [];
  page.on('request', (req) => {
    const url = new URL(req.url());
    if (url.protocol === 'data:' || url.protocol === 'about:' || url.protocol === 'file:' || url.protocol === 'blob:') return;
    if (!['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname)) foreign.push(req.url());
  });
  return foreign;
}

/**
 * Text elements that stick out of the SVG they belong to, by more than a pixel: labels a chart would cut off
 * or draw over its neighbours. Returns one line per offender.
 */
export async function overflowingChartText(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const out: string[] = [];
    for (const svg of Array.from(document.querySelectorAll('svg'))) {
      const box = svg.getBoundingClientRect();
      for (const t of Array.from(svg.querySelectorAll('text'))) {
        const r = t.getBoundingClientRect();
        if (r.width === 0 && r.height === 0) continue;
        if (r.left < box.left - 1 || r.right > box.right + 1 || r.top < box.top - 1 || r.bottom > box.bottom + 1) out.push(`"${t.textContent ?? ''}" outside its chart`);
      }
    }
    return out;
  });
}
