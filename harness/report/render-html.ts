import type { BenchReport } from '../../schemas/types/report.ts';
import { renderReportCharts, type ReportChart } from './charts.ts';
import { armPoints, costAxisLabel, headlineText, mainChartTitle, renderArmChart } from './deck-charts.ts';
import type { ReportBlock, ReportSection } from './report-document.ts';
import { buildReportDocument, headlineRows } from './report-sections.ts';
import { verdictLead } from './verdict-lead.ts';

/** Text made inert in HTML (element content and double-quoted attributes). */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/**
 * Report text as HTML content: escaped, with every bracketed interval (`[−57, 85]`) in a span that never breaks,
 * so a narrow cell or card wraps between figures, never inside one, and a backquoted command as code.
 */
export function htmlText(text: string): string {
  return escapeHtml(text)
    .replace(/\[[^[\]\n]{1,60}\]/g, (iv) => `<span class="iv">${iv}</span>`)
    .replace(/`([^`\n]+)`/g, (_, cmd: string) => `<code>${cmd}</code>`);
}

// Everything inline: the page must open from an artifact zip or an email with no network and no script.
const STYLE = `
:root { color-scheme: light dark; --fg: #1f2328; --bg: #ffffff; --muted: #59636e; --line: #d0d7de; --head: #f6f8fa; --card: #ffffff; --warn-bg: #fff8c5; --warn-fg: #4d2d00; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6edf3; --bg: #0d1117; --muted: #9198a1; --line: #3d444d; --head: #161b22; --card: #ffffff; --warn-bg: #3b2e00; --warn-fg: #f2cc60; } }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); background: var(--bg); margin: 1.5rem auto; max-width: 1100px; padding: 0 1rem; }
h1 { font-size: 1.2rem; margin: 0 0 0.75rem; color: var(--muted); font-weight: 600; word-break: break-all; }
h2 { font-size: 1.15rem; margin: 2rem 0 0.6rem; border-bottom: 1px solid var(--line); padding-bottom: 0.25rem; }
.banner { border: 2px solid #bf8700; background: var(--warn-bg); color: var(--warn-fg); padding: 0.6rem 1rem; border-radius: 6px; margin-bottom: 1rem; font-weight: 600; }
.card { border: 1px solid var(--line); border-radius: 10px; padding: 1.1rem 1.4rem; margin: 0 0 1rem; }
.card .what { color: var(--muted); font-size: 1rem; margin: 0 0 0.4rem; }
.card .verdict { font-size: 1.45rem; line-height: 1.3; font-weight: 700; margin: 0 0 0.6rem; }
.card .verdict .scope { display: block; font-size: 1rem; font-weight: 400; color: var(--muted); margin-bottom: 0.2rem; }
.card .details { margin: 0 0 0.9rem; padding-left: 1.1rem; color: var(--fg); }
.card .details li { margin: 0.15rem 0; }
.iv { white-space: nowrap; }
.kpis { display: flex; flex-wrap: wrap; gap: 0.75rem; margin: 0; padding: 0; list-style: none; }
.kpis li { border: 1px solid var(--line); border-radius: 8px; padding: 0.45rem 0.8rem; min-width: 11rem; }
.kpis .label { display: block; color: var(--muted); font-size: 0.8rem; }
.kpis .value { font-size: 1.15rem; font-weight: 600; font-variant-numeric: tabular-nums; }
table { border-collapse: collapse; margin: 0.5rem 0 1rem; font-size: 13px; }
th, td { border: 1px solid var(--line); padding: 0.3rem 0.55rem; text-align: left; vertical-align: top; }
th { background: var(--head); }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
.scroll { overflow-x: auto; }
ul { padding-left: 1.25rem; }
pre { background: var(--head); padding: 0.6rem 0.8rem; border-radius: 6px; overflow-x: auto; }
code { font-family: ui-monospace, "SF Mono", Menlo, Consolas, monospace; font-size: 0.92em; }
figure { margin: 1rem 0 1.5rem; }
figcaption { font-weight: 600; margin-bottom: 0.35rem; }
/* Charts are drawn dark-on-light: they sit on a light card in both themes so they stay legible. */
figure svg { max-width: 100%; height: auto; background: var(--card); border-radius: 6px; }
.multiples { display: grid; grid-template-columns: repeat(auto-fill, minmax(250px, 1fr)); gap: 0.6rem; }
.multiples figure { margin: 0; }
@page { size: A4 landscape; margin: 12mm; }
@media print {
  :root { color-scheme: light; --fg: #1f2328; --bg: #ffffff; --muted: #59636e; --line: #d0d7de; --head: #f6f8fa; --warn-bg: #fff8c5; --warn-fg: #4d2d00; }
  body { margin: 0; max-width: none; }
  .scroll { overflow: visible; }
  #answer { break-after: page; }
  figure, table, .card { break-inside: avoid; }
}
`;

function table(b: Extract<ReportBlock, { kind: 'table' }>): string {
  const cell = (tag: 'th' | 'td', text: string, i: number) => `<${tag}${b.numeric.includes(i) ? ' class="num"' : ''}>${htmlText(text)}</${tag}>`;
  const head = `<tr>${b.head.map((h, i) => cell('th', h, i)).join('')}</tr>`;
  const rows = b.rows.map((r) => `<tr>${r.map((c, i) => cell('td', c, i)).join('')}</tr>`).join('\n');
  return `<div class="scroll"><table>\n<thead>${head}</thead>\n<tbody>\n${rows}\n</tbody>\n</table></div>`;
}

function block(b: ReportBlock): string {
  switch (b.kind) {
    case 'table':
      return table(b);
    case 'list':
      return `<ul>\n${b.items.map((i) => `<li>${htmlText(i)}</li>`).join('\n')}\n</ul>`;
    case 'text':
      return `<p>${htmlText(b.text)}</p>`;
    case 'command':
      return `<pre><code>${escapeHtml(b.text)}</code></pre>`;
  }
}

function figure(c: ReportChart): string {
  // The SVG comes from echarts, which escapes the report text it draws (workload names, legends).
  return `<figure id="chart-${escapeHtml(c.id)}">\n<figcaption>${escapeHtml(c.title)}</figcaption>\n${c.svg}\n</figure>`;
}

function section(s: ReportSection, charts: readonly ReportChart[]): string {
  const mine = charts.filter((c) => c.section === s.id);
  // Per-workload small multiples go in a grid; other charts one per row.
  const small = mine.filter((c) => c.id.startsWith('workload-'));
  const large = mine.filter((c) => !c.id.startsWith('workload-'));
  const parts = [
    `<h2>${escapeHtml(s.title)}</h2>`,
    ...s.blocks.map(block),
    ...(small.length ? [`<p>Cost by pass for each workload; the label on a bar is solved reps / reps.</p>\n<div class="multiples">\n${small.map(figure).join('\n')}\n</div>`] : []),
    ...large.map(figure),
  ];
  return `<section id="${s.id}">\n${parts.join('\n')}\n</section>`;
}

/**
 * The answer first: the verdict (the first sentence of the text headline, its scope, what was compared on what
 * units, above its claim; the short title when it has no scope), the verdict's other sentences under it, its figures with intervals, then the main chart.
 */
function answer(report: BenchReport): string {
  const { title, verdict } = headlineText(report);
  const { scope, claim, details } = verdictLead(verdict);
  const kpis = report.headline ? headlineRows(report.headline).slice(0, 4) : [];
  const items = kpis.map(([label, value]) => `<li><span class="label">${htmlText(label)}</span><span class="value">${htmlText(value)}</span></li>`).join('\n');
  const points = armPoints(report);
  const chart = points.length ? figure({ id: 'main', section: 'headline', title: mainChartTitle(report), svg: renderArmChart(points, undefined, costAxisLabel(report)) }) : '';
  const lead = `<p class="verdict">${scope ? `<span class="scope">${htmlText(scope)}</span> ` : ''}<span class="claim">${htmlText(claim)}</span></p>`;
  const more = details.length ? `\n<ul class="details">\n${details.map((d) => `<li>${htmlText(d)}</li>`).join('\n')}\n</ul>` : '';
  return `<section id="answer">\n<div class="card" role="region" aria-label="headline">\n${scope ? '' : `<p class="what">${escapeHtml(title)}</p>\n`}${lead}${more}\n${items ? `<ul class="kpis">\n${items}\n</ul>` : ''}\n</div>\n${chart}\n</section>`;
}

/**
 * The report as one self-contained HTML page for a deck: the headline card and the main chart first, then the
 * Markdown's content with inline SVG charts; light and dark, printable at A4 landscape; no script, no external
 * URL, no machine-local path.
 */
export function renderReportHtml(report: BenchReport): string {
  const doc = buildReportDocument(report);
  const charts = renderReportCharts(report);
  const banner = doc.banner ? `<div class="banner" role="note">${escapeHtml(doc.banner)}</div>\n` : '';
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(doc.title)}</title>`,
    `<style>${STYLE}</style>`,
    '</head>',
    '<body>',
    `${banner}<h1>${escapeHtml(doc.title)}</h1>`,
    answer(report),
    // The headline section's content is the card above; the details follow.
    ...doc.sections.filter((s) => s.id !== 'headline').map((s) => section(s, charts)),
    '</body>',
    '</html>',
  ].join('\n');
}
