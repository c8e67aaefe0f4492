import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { BenchReport } from '../../schemas/types/report.ts';
import { REPO_ROOT } from '../../test/support/temp.ts';
import { loadReport } from './find-report.ts';
import { usd } from './format.ts';
import { escapeMarkdown, fencedBlock, renderReportMarkdown } from './render-md.ts';
import fc from 'fast-check';
import { WORKLOAD_TABLE_HEAD } from './report-sections.ts';

const fixture = (name: 'single' | 'a3'): BenchReport => structuredClone(loadReport(join(REPO_ROOT, 'test/fixtures/reports', `${name}.json`)).report);

/** Cells of a Markdown table row, splitting only on pipes that are not escaped. */
const cells = (row: string) => row.slice(1, -1).split(/(?<!\\)\|/).map((c) => c.trim());

/** The rows (header included) of the Markdown table whose header row starts with `first`. */
function tableRows(md: string, first: string): string[] {
  const lines = md.split('\n');
  const start = lines.findIndex((l) => l.startsWith(`| ${first} |`));
  expect(start).toBeGreaterThanOrEqual(0);
  const end = lines.findIndex((l, i) => i > start && !l.startsWith('|'));
  return lines.slice(start, end === -1 ? undefined : end);
}

describe('renderReportMarkdown', () => {
  it('opens with the simulated-provider banner as a blockquote, and has none when the report has none', () => {
    const sim = fixture('single');
    expect(sim.banner).not.toBeNull();
    const md = renderReportMarkdown(sim);
    expect(md.split('\n')[0]).toBe(`> **${escapeMarkdown(sim.banner!)}**`);

    const real = { ...fixture('single'), banner: null };
    const plain = renderReportMarkdown(real);
    expect(plain.startsWith('# ')).toBe(true);
    expect(plain).not.toContain('SIMULATED');
  });

  it('has the per-workload table header and one row per workload result, money to 4 decimals', () => {
    for (const name of ['single', 'a3'] as const) {
      const report = fixture(name);
      const rows = tableRows(renderReportMarkdown(report), 'workload');
      expect(cells(rows[0]!)).toEqual(WORKLOAD_TABLE_HEAD.map(escapeMarkdown));
      const body = rows.slice(2);
      expect(body).toHaveLength(report.workloads.length);
      body.forEach((row, i) => {
        const w = report.workloads[i]!;
        const c = cells(row);
        expect(c).toHaveLength(WORKLOAD_TABLE_HEAD.length);
        expect(c[0]).toBe(escapeMarkdown(w.workload));
        expect(c[1]).toBe(w.pass);
        expect(c[6]).toBe(usd(w.savings.actual_repriced_usd));
        expect(c[6]).toMatch(/^\d+\.\d{4}$/);
      });
    }
  });

  it('has the provenance table and the aggregate', () => {
    const report = fixture('single');
    const md = renderReportMarkdown(report);
    expect(md).toContain('## Provenance');
    expect(md).toContain(`| actual model | ${report.provenance.actual_model} |`);
    expect(md).toContain('## Aggregate');
    expect(md).toContain(`$${usd(report.aggregate.savings.actual_repriced_usd)}`);
  });

  it('renders the A3 section only when protocol_metrics is present', () => {
    expect(renderReportMarkdown(fixture('single'))).not.toContain('## A3 protocol');
    const report = fixture('a3');
    const md = renderReportMarkdown(report);
    expect(md).toContain('## A3 protocol');
    const passes = tableRows(md, 'pass').slice(2);
    expect(passes.map((r) => cells(r)[0])).toEqual(report.protocol_metrics!.passes.map((p) => p.pass));
    expect(md).toContain('Pass D not run:');
    expect(md).toContain('savings vs measured strong arm');
    expect(md).toContain('performance gap recovered');
    expect(md).toContain('strong-call rate in Pass C');
    expect(tableRows(md, 'workload (Pass C)').slice(2)).toHaveLength(report.protocol_metrics!.slot4_per_workload.length);
    expect(md).toContain('| cluster tightness |');
  });

  it('escapes pipes (and markup) in cell text so a row keeps its columns', () => {
    const report = fixture('single');
    report.workloads[0]!.workload = 'evil|name <b>*x*</b>';
    const rows = tableRows(renderReportMarkdown(report), 'workload');
    const c = cells(rows[2]!);
    expect(c).toHaveLength(WORKLOAD_TABLE_HEAD.length);
    expect(c[0]).toBe('evil\\|name \\<b\\>\\*x\\*\\</b\\>');
  });

  it('lists failed assertions and recording-path errors', () => {
    const report = fixture('single');
    report.recording_path_errors = ['fix-a-bug-small: cluster sample size 1 < 3 seed passes'];
    const md = renderReportMarkdown(report);
    expect(md).toContain('## Recording-path errors (1)');
    expect(md).toContain('- fix-a-bug-small: cluster sample size 1 \\< 3 seed passes');
    const failed = report.workloads.flatMap((w) => w.reps.flatMap((r) => r.assertions.filter((a) => !a.passed)));
    expect(md).toMatch(failed.length === 0 ? /All \d+ assertions? held, over \d+ reps?\./ : `## Failed assertions (${failed.length})`);
  });
});

describe('a command block its text cannot close (provenance.db_path is user input)', () => {
  /** CommonMark: the block closes at the first later line of >= fence-length backticks and nothing else. */
  const blockEnd = (lines: string[], open: number) => {
    const fence = /^(`{3,})/.exec(lines[open]!)![1]!.length;
    return lines.findIndex((l, i) => i > open && new RegExp(`^ {0,3}\`{${fence},}\\s*$`).test(l));
  };

  it('a path with a newline, a fence, raw HTML and a javascript: link stays inside the sh block', () => {
    const report = fixture('single');
    const evil = 'x.db\n```\n<img src=x onerror=alert(1)>\n[click](javascript:alert(1))\n````';
    report.provenance.db_path = `/home/u/reports/${evil}`;
    const lines = renderReportMarkdown(report).split('\n');
    const open = lines.findIndex((l) => /^`{3,}sh$/.test(l));
    const end = blockEnd(lines, open);
    // Outside the block (the provenance table) the same text is escaped; only raw occurrences matter.
    const raw = (needle: string) => lines.flatMap((l, i) => (l.includes(needle) && !l.includes('\\') ? [i] : []));
    expect(open).toBeGreaterThanOrEqual(0);
    for (const i of [...raw('<img'), ...raw('](javascript:')]) {
      expect(i).toBeGreaterThan(open);
      expect(i).toBeLessThan(end);
    }
    // Shell-quoted too: pasted into a terminal, the path is one word.
    expect(lines.slice(open + 1, end).join('\n')).toContain("--db-path 'reports/x.db\n```");
  });

  it('holds for any text: the fence closes only on its own last line', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('`', '\n', ' ', 'a', '~') }), (text) => {
        const lines = fencedBlock('sh', text).join('\n').split('\n');
        expect(blockEnd(lines, 0)).toBe(lines.length - 1);
      }),
    );
  });
});
