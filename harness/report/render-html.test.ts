import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { BenchReport, Tightness } from '../../schemas/types/report.ts';
import { REPO_ROOT } from '../../test/support/temp.ts';
import { loadReport } from './find-report.ts';
import { usd } from './format.ts';
import { escapeHtml, htmlText, renderReportHtml } from './render-html.ts';
import { verdictLead } from './verdict-lead.ts';
import { WORKLOAD_TABLE_HEAD } from './report-sections.ts';

const fixture = (name: 'single' | 'a3' | 'a3-oracle' | 'signal'): BenchReport => structuredClone(loadReport(join(REPO_ROOT, 'test/fixtures/reports', `${name}.json`)).report);

const html0 = (css: string) => renderReportHtml(fixture('single')).includes(css);

const svgCount = (html: string) => html.match(/<svg[\s>]/g)?.length ?? 0;

const V2: Tightness = { intra: 0.9, inter: 0.2, separation: 0.7, fingerprints: 30, pairs_intra: 100, pairs_inter: 300 };

describe('renderReportHtml', () => {
  it('draws the main chart and per-workload cost: one chart for a one-pass run, small multiples for A3', () => {
    expect(svgCount(renderReportHtml(fixture('single')))).toBe(2);
    const a3 = fixture('a3');
    const workloads = new Set(a3.workloads.map((w) => w.workload)).size;
    expect(a3.protocol_metrics!.cluster_tightness.v2).toBeNull();
    // main chart + one small chart per workload + slot 4 by pass
    expect(svgCount(renderReportHtml(a3))).toBe(1 + workloads + 1);
    a3.protocol_metrics!.cluster_tightness.v2 = V2;
    const html = renderReportHtml(a3);
    expect(svgCount(html)).toBe(1 + workloads + 2);
    expect(html).toContain('id="chart-cluster-tightness"');
    expect(html.match(/<div class="multiples">/g)).toHaveLength(1);
  });

  it('opens with the answer: the headline card and the main chart before any table', () => {
    const a3 = fixture('a3');
    const html = renderReportHtml(a3);
    const card = html.indexOf('class="card"');
    expect(card).toBeGreaterThan(0);
    // The verdict is the headline's first sentence; its other sentences follow under it, inside the card.
    const { claim, details } = verdictLead(a3.headline!.verdict);
    expect(html.indexOf(htmlText(claim))).toBeGreaterThan(card);
    for (const d of details) expect(html.indexOf(htmlText(d))).toBeGreaterThan(html.indexOf(htmlText(claim)));
    expect(html.indexOf('id="chart-main"')).toBeGreaterThan(card);
    expect(html.indexOf('id="chart-main"')).toBeLessThan(html.indexOf('<table>'));
  });

  it('is deck-ready: light and dark, printable at A4 landscape, no machine-local path', () => {
    const a3 = fixture('a3');
    a3.provenance.db_path = '/home/alice/work/metis/reports/.runs/bench-x.db';
    const html = renderReportHtml(a3);
    expect(html).toContain('prefers-color-scheme: dark');
    expect(html).toContain('@page { size: A4 landscape');
    expect(html).not.toContain('/home/alice');
    expect(html).toContain('reports/.runs/bench-x.db');
  });

  it('is self-contained: no script, no external resource, no URL but the SVG namespaces', () => {
    for (const name of ['single', 'a3'] as const) {
      const html = renderReportHtml(fixture(name));
      expect(html.startsWith('<!doctype html>')).toBe(true);
      expect(html).not.toMatch(/<script|<link|<img|<iframe|\ssrc=|url\(/i);
      const withoutNamespaces = html.replace(/\sxmlns(:\w+)?="http:\/\/www\.w3\.org\/[^"]*"/g, '');
      expect(withoutNamespaces).not.toMatch(/https?:\/\//);
    }
  });

  it('puts the banner in a visible box at the top of a simulated report, and none when banner is null', () => {
    const sim = fixture('single');
    const html = renderReportHtml(sim);
    const body = html.slice(html.indexOf('<body>'));
    expect(body).toMatch(new RegExp(`^<body>\\n<div class="banner" role="note">${escapeHtml(sim.banner!).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}</div>`));
    const plain = renderReportHtml({ ...fixture('single'), banner: null });
    expect(plain).not.toContain('class="banner"');
    expect(plain).not.toContain('SIMULATED');
  });

  it('has the same tables as the Markdown: per-workload rows, provenance, A3 section', () => {
    const report = fixture('a3');
    const html = renderReportHtml(report);
    for (const h of WORKLOAD_TABLE_HEAD) expect(html).toContain(`>${escapeHtml(h)}</th>`);
    for (const w of report.workloads) expect(html).toContain(`<td class="num">${usd(w.savings.actual_repriced_usd)}</td>`);
    expect(html.match(/<tr><td>[^<]*<\/td><td>(A|B|C)<\/td>/g)).toHaveLength(report.workloads.length);
    expect(html).toContain('<h2>Provenance</h2>');
    expect(html).toContain('<h2>A3 protocol</h2>');
    expect(html).toContain('Pass D not run:');
  });

  it('escapes report text: a hostile workload name stays text in tables and in the charts', () => {
    const report = fixture('a3');
    for (const w of report.workloads) if (w.workload === 'fix-a-bug-small') w.workload = '<script>alert("x")</script>&';
    const html = renderReportHtml(report);
    expect(html).not.toContain('<script');
    expect(html).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;');
    // The small multiple of that workload names it in its caption, escaped; no SVG carries it raw.
    expect(html).toContain('<figcaption>&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;</figcaption>');
    for (const svg of html.match(/<svg[\s\S]*?<\/svg>/g)!) expect(svg).not.toContain('<script');
  });

  it('never lets an interval break inside its brackets: every [low, high] in the page text sits in a no-wrap span', () => {
    for (const name of ['single', 'a3', 'a3-oracle'] as const) {
      const html = renderReportHtml(fixture(name));
      const text = html.slice(html.indexOf('<body>')).replace(/<svg[\s\S]*?<\/svg>/g, '');
      const intervals = text.match(/\[[^[\]<\n]{1,60}\]/g) ?? [];
      expect(intervals.length).toBeGreaterThan(2);
      const wrapped = text.match(/<span class="iv">\[[^[\]<\n]{1,60}\]<\/span>/g) ?? [];
      expect(wrapped.length).toBe(intervals.length);
    }
    expect(html0('.iv { white-space: nowrap; }')).toBe(true);
  });

  it('draws a signal run as its two arms, cheap and strong, never one blended point', () => {
    const signal = fixture('signal');
    const html = renderReportHtml(signal);
    const main = html.match(/<figure id="chart-main">[\s\S]*?<\/figure>/)![0];
    const cheap = signal.workloads.filter((w) => w.pass === 'cheap');
    const strong = signal.workloads.filter((w) => w.pass === 'strong');
    const rate = (ws: typeof cheap) => Math.round((100 * ws.reduce((n, w) => n + w.solved, 0)) / ws.reduce((n, w) => n + w.reps.length, 0));
    expect(main).toContain(`cheap: haiku-4-5  ${rate(cheap)}%`);
    expect(main).toContain(`strong: sonnet-4-6  ${rate(strong)}%`);
    expect(main).not.toContain('(this run)');
    // The card states each arm's figures instead of "No headline".
    const card = html.slice(html.indexOf('class="card"'), html.indexOf('</div>', html.indexOf('class="card"')));
    expect(card).not.toContain('No headline');
    expect(card).toContain(`haiku-4-5 (cheap) solved ${rate(cheap)}%`);
    expect(card).toContain(`sonnet-4-6 (strong) solved ${rate(strong)}%`);
    // Commands read as code, never with their Markdown backquotes.
    expect(card).toContain('<code>bench run --protocol a3</code>');
    expect(card).not.toContain('`');
  });
});
