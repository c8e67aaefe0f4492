import type { BenchReport } from '../../schemas/types/report.ts';
import type { ReportBlock } from './report-document.ts';
import { buildReportDocument } from './report-sections.ts';

/**
 * Text from the report made literal in Markdown: the punctuation that could start markup gets a
 * backslash (GFM allows it before any ASCII punctuation), and newlines fold so a cell stays one row.
 */
export function escapeMarkdown(text: string): string {
  // `_` inside a word never starts emphasis in GFM, so `manual_sticky` stays as typed.
  return text
    .replace(/[\\`*[\]<>|&#~]|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])/g, (c) => `\\${c}`)
    .replace(/\r?\n/g, ' ');
}

/**
 * A fenced code block that its text cannot close: the fence is one backtick longer than the longest run
 * of backticks in the text (CommonMark closes a fence only with one at least as long), so a path holding
 * a newline and a fence stays inside the block instead of injecting Markdown or HTML after it.
 */
export function fencedBlock(info: string, text: string): string[] {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return [`${fence}${info}`, text, fence];
}

function table(b: Extract<ReportBlock, { kind: 'table' }>): string[] {
  const row = (cells: readonly string[]) => `| ${cells.map(escapeMarkdown).join(' | ')} |`;
  const rule = `|${b.head.map((_, i) => (b.numeric.includes(i) ? ' ---: ' : ' --- ')).join('|')}|`;
  return [row(b.head), rule, ...b.rows.map(row)];
}

function block(b: ReportBlock): string[] {
  switch (b.kind) {
    case 'table':
      return table(b);
    case 'list':
      return b.items.map((i) => `- ${escapeMarkdown(i)}`);
    case 'text':
      return [escapeMarkdown(b.text)];
    case 'command':
      return fencedBlock('sh', b.text);
  }
}

/** The report as Markdown for a slide or `$GITHUB_STEP_SUMMARY`: banner, provenance, tables, A3 section, problems. */
export function renderReportMarkdown(report: BenchReport): string {
  const doc = buildReportDocument(report);
  const out: string[] = [];
  if (doc.banner) out.push(`> **${escapeMarkdown(doc.banner)}**`, '');
  out.push(`# ${escapeMarkdown(doc.title)}`);
  for (const s of doc.sections) {
    out.push('', `## ${escapeMarkdown(s.title)}`);
    for (const b of s.blocks) out.push('', ...block(b));
  }
  return out.join('\n');
}
