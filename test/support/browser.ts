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

/**
 * Every label a reader cannot read whole, one line each: SVG text sticking out of its chart or drawn over another
 * text of the same chart, and page text cut by its box (a cell, list item, card figure or heading whose content is
 * wider than the box, or a page wider than the window). A table inside a horizontal scroller (`.scroll`) may
 * be wider than the page: it scrolls, nothing is cut; its cells are still measured.
 */
export async function clippedLabels(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const out: string[] = [];
    const name = (t: Element) => JSON.stringify((t.textContent ?? '').trim().slice(0, 60));
    for (const svg of Array.from(document.querySelectorAll('svg'))) {
      const box = svg.getBoundingClientRect();
      const texts = Array.from(svg.querySelectorAll('text'))
        .map((t) => ({ t, r: t.getBoundingClientRect() }))
        .filter(({ t, r }) => r.width > 0 && r.height > 0 && (t.textContent ?? '').trim() !== '');
      for (const { t, r } of texts) if (r.left < box.left - 1 || r.right > box.right + 1 || r.top < box.top - 1 || r.bottom > box.bottom + 1) out.push(`${name(t)} outside its chart`);
      // Two labels drawn over each other: their boxes share more than 2 px both ways.
      for (let i = 0; i < texts.length; i++) {
        for (let j = i + 1; j < texts.length; j++) {
          const a = texts[i]!.r;
          const b = texts[j]!.r;
          const w = Math.min(a.right, b.right) - Math.max(a.left, b.left);
          const h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
          if (w > 2 && h > 2) out.push(`${name(texts[i]!.t)} drawn over ${name(texts[j]!.t)}`);
        }
      }
    }
    for (const el of Array.from(document.querySelectorAll('th, td, li, p, h1, h2, h3, figcaption, .kpis .label, .kpis .value, .card'))) {
      if (el.closest('svg')) continue;
      if (el.scrollWidth > el.clientWidth + 1) out.push(`${el.tagName.toLowerCase()} ${name(el)} cut: content ${el.scrollWidth} px in a ${el.clientWidth} px box`);
    }
    const root = document.documentElement;
    if (root.scrollWidth > root.clientWidth + 1) out.push(`the page is ${root.scrollWidth} px wide in a ${root.clientWidth} px window`);
    return out;
  });
}

/** Intervals (`[−57, 85]`) of the page's text that the browser broke over two lines, one line each. */
export async function brokenIntervals(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const out: string[] = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    // An interval can span text nodes only through markup inside it; the renderers put none there.
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (node.parentElement?.closest('svg')) continue;
      const text = node.textContent ?? '';
      for (const m of text.matchAll(/\[[^[\]\n]{1,60}\]/g)) {
        const range = document.createRange();
        range.setStart(node, m.index);
        range.setEnd(node, m.index + m[0].length);
        const tops = new Set(Array.from(range.getClientRects()).filter((r) => r.width > 0).map((r) => Math.round(r.top)));
        if (tops.size > 1) out.push(`${m[0]} broken over ${tops.size} lines`);
      }
    }
    return out;
  });
}
