import type { BenchReport } from '../../schemas/types/report.ts';
import { renderReportCharts, type ReportChart } from './charts.ts';
import { buildReportDocument, type ReportBlock, type ReportSection } from './report-sections.ts';

/** Text made inert in HTML (element content and double-quoted attributes). */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

// Everything inline: the page must open from an artifact zip or an email with no network and no script.
const STYLE = `
:root { color-scheme: light; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: #1f2328; margin: 2rem auto; max-width: 1100px; padding: 0 1rem; }
h1 { font-size: 1.5rem; margin: 0 0 1rem; word-break: break-all; }
h2 { font-size: 1.15rem; margin: 2rem 0 0.6rem; border-bottom: 1px solid #d0d7de; padding-bottom: 0.25rem; }
.banner { border: 2px solid #bf8700; background: #fff8c5; color: #4d2d00; padding: 0.75rem 1rem; border-radius: 6px; margin-bottom: 1.25rem; font-weight: 600; }
table { border-collapse: collapse; margin: 0.5rem 0 1rem; font-size: 13px; }
th, td { border: 1px solid #d0d7de; padding: 0.3rem 0.55rem; text-align: left; vertical-align: top; }
th { background: #f6f8fa; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
.scroll { overflow-x: auto; }
ul { padding-left: 1.25rem; }
pre { background: #f6f8fa; padding: 0.6rem 0.8rem; border-radius: 6px; overflow-x: auto; }
figure { margin: 1rem 0 1.5rem; }
figcaption { font-weight: 600; margin-bottom: 0.35rem; }
figure svg { max-width: 100%; height: auto; }
@media print { body { margin: 0; max-width: none; } .scroll { overflow: visible; } }
`;

function table(b: Extract<ReportBlock, { kind: 'table' }>): string {
  const cell = (tag: 'th' | 'td', text: string, i: number) => `<${tag}${b.numeric.includes(i) ? ' class="num"' : ''}>${escapeHtml(text)}</${tag}>`;
  const head = `<tr>${b.head.map((h, i) => cell('th', h, i)).join('')}</tr>`;
  const rows = b.rows.map((r) => `<tr>${r.map((c, i) => cell('td', c, i)).join('')}</tr>`).join('\n');
  return `<div class="scroll"><table>\n<thead>${head}</thead>\n<tbody>\n${rows}\n</tbody>\n</table></div>`;
}

function block(b: ReportBlock): string {
  switch (b.kind) {
    case 'table':
      return table(b);
    case 'list':
      return `<ul>\n${b.items.map((i) => `<li>${escapeHtml(i)}</li>`).join('\n')}\n</ul>`;
    case 'text':
      return `<p>${escapeHtml(b.text)}</p>`;
    case 'command':
      return `<pre><code>${escapeHtml(b.text)}</code></pre>`;
  }
}

function figure(c: ReportChart): string {
  // The SVG comes from echarts, which escapes the report text it draws (workload names, legends).
  return `<figure id="chart-${c.id}">\n<figcaption>${escapeHtml(c.title)}</figcaption>\n${c.svg}\n</figure>`;
}

function section(s: ReportSection, charts: readonly ReportChart[]): string {
  const parts = [`<h2>${escapeHtml(s.title)}</h2>`, ...s.blocks.map(block), ...charts.filter((c) => c.section === s.id).map(figure)];
  return `<section id="${s.id}">\n${parts.join('\n')}\n</section>`;
}

/** The report as one self-contained HTML page: the Markdown's content plus inline SVG charts, no script, no external URL. */
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
    ...doc.sections.map((s) => section(s, charts)),
    '</body>',
    '</html>',
  ].join('\n');
}
