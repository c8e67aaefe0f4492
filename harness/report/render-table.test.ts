import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { BenchReport } from '../../schemas/types/report.ts';
import { REPO_ROOT } from '../../test/support/temp.ts';
import { maxLineWidth } from './fit-table.ts';
import { loadReport } from './find-report.ts';
import { usd } from './format.ts';
import { buildHeadline } from './headline.ts';
import { renderReportMarkdown } from './render-md.ts';
import { renderReportTable } from './render-table.ts';

const fixture = (name: 'single' | 'a3'): BenchReport => structuredClone(loadReport(join(REPO_ROOT, 'test/fixtures/reports', `${name}.json`)).report);

/** Lines that are table rows or table borders (the box-drawing characters cli-table3 uses). */
const tableLines = (text: string) => text.split('\n').filter((l) => /[│┌└├]/.test(l));

describe('renderReportTable', () => {
  it('prints the banner first and last for a simulated run, and none when banner is null', () => {
    const sim = fixture('single');
    const text = renderReportTable(sim, { json: null, width: null });
    const lines = text.split('\n');
    expect(lines[0]).toBe(`*** ${sim.banner} ***`);
    expect(lines.at(-1)).toBe(`*** ${sim.banner} ***`);
    // At a width, the banner wraps like every other line, and still opens the report.
    expect(renderReportTable(sim, { json: null, width: 80 }).startsWith(`*** ${sim.banner!.split(' ').slice(0, 3).join(' ')}`)).toBe(true);
    const plain = renderReportTable({ ...fixture('single'), banner: null, headline: null }, { json: null });
    expect(plain).not.toContain('***');
    expect(plain.startsWith('=== Metis benchmark suite ===')).toBe(true);
  });

  it('opens with the headline, right after the banner, and repeats its verdict at the end', () => {
    const a3 = fixture('a3');
    const text = renderReportTable(a3, { json: null, width: null });
    const lines = text.split('\n');
    expect(lines[2]).toBe('=== Headline ===');
    expect(lines[3]).toBe(a3.headline!.verdict);
    expect(text.indexOf('=== Headline ===')).toBeLessThan(text.indexOf('=== Metis benchmark suite ==='));
    expect(text).toContain(`Headline: ${a3.headline!.verdict}`);
  });

  it('uses the shared formatters: money to 4 decimals in each workload row, the A3 section with A3 metrics only', () => {
    const a3 = fixture('a3');
    const text = renderReportTable(a3, { json: '/x.json', width: null });
    for (const w of a3.workloads) expect(text).toMatch(new RegExp(`${w.workload}\\s+│ ${w.pass}\\s+│.*│\\s+${usd(w.savings.actual_repriced_usd)} │`));
    expect(text).toContain('A3 protocol (cheap:');
    expect(renderReportTable(fixture('single'), { json: null })).not.toContain('A3 protocol');
  });

  it('fits every table to 80, 100 and 120 columns, says which columns it hid, and keeps all with no width', () => {
    for (const name of ['single', 'a3'] as const) {
      for (const width of [80, 100, 120]) {
        const text = renderReportTable(fixture(name), { json: null, width });
        for (const line of tableLines(text)) expect([...line].length, `${name} at ${width}: ${line}`).toBeLessThanOrEqual(width);
      }
      const wide = renderReportTable(fixture(name), { json: null, width: null });
      expect(wide).not.toContain('hidden to fit');
    }
    expect(renderReportTable(fixture('a3'), { json: null, width: 80 }).replace(/\n\s+/g, ' ')).toMatch(/hidden to fit 80 columns: .*--wide shows every column/);
    expect(maxLineWidth(tableLines(renderReportTable(fixture('a3'), { json: null, width: null })).join('\n'))).toBeGreaterThan(120);
  });

  it('explains its abbreviations once, beside the tables that use them, and not those of hidden columns', () => {
    const text = renderReportTable(fixture('a3'), { json: null, width: null });
    for (const term of ['llm = LLM calls', 'pass@k / ^k =', 'A = every turn forced to the cheap model', 'slot-4 fire =', 'inversion =']) {
      expect(text.split(term).length - 1, term).toBe(1);
    }
    const narrow = renderReportTable(fixture('a3'), { json: null, width: 100 });
    expect(narrow.replace(/\n\s+/g, ' ')).toMatch(/hidden to fit 100 columns: .*llm/);
    expect(narrow).not.toContain('llm = LLM calls');
  });

  it('numbers reps from 1 and words failed assertions as sentences', () => {
    const a3 = fixture('a3');
    const w = a3.workloads[0]!;
    w.reps[0]!.assertions.push({ scope: 'turn 2', name: 'min_tool_calls', passed: false, detail: 'made 2 tool calls; at least 3 expected' });
    const text = renderReportTable(a3, { json: null });
    expect(text).toContain(`${w.workload}, pass ${w.pass}, rep ${w.reps[0]!.rep + 1}: turn 2 made 2 tool calls; at least 3 expected (min_tool_calls)`);
  });

  it('a run stopped before its first rep says no assertion was evaluated, never "all held"', () => {
    const r = fixture('single');
    r.status = 'interrupted';
    for (const w of r.workloads) w.reps = [];
    const text = renderReportTable(r, { json: null, width: null });
    expect(text).toContain('Assertions: no assertion was evaluated (no rep ran).');
    expect(text).not.toMatch(/all held|assertions held/i);
    expect(renderReportMarkdown(r)).toContain('No assertion was evaluated (no rep ran).');
    const full = fixture('single');
    full.workloads.forEach((w) => w.reps.forEach((x) => x.assertions.forEach((a) => (a.passed = true))));
    const n = full.workloads.reduce((s, w) => s + w.reps.reduce((m, x) => m + x.assertions.length, 0), 0);
    expect(renderReportTable(full, { json: null, width: null })).toContain(`Assertions: all ${n} assertions held, over ${full.workloads.reduce((s, w) => s + w.reps.length, 0)} reps.`);
  });

  it('prints the mean alone for a single rep (no ±0.000 spread)', () => {
    const single = fixture('single');
    single.workloads[0]!.quality_std = null;
    const text = renderReportTable(single, { json: null, width: null });
    expect(text).toMatch(new RegExp(`${single.workloads[0]!.quality_mean!.toFixed(3)}\\s+│`));
  });
});

describe('every line fits --width (issue 23 item 9)', () => {
  it('property: at any width from 60 to 160, no line of the stdout report is wider, for A3 and single', async () => {
    const fc = (await import('fast-check')).default;
    const a3 = fixture('a3');
    // Long enough to overflow at 100 on main: a warning, a deep DB path and a banner of their own.
    a3.warnings.push(`workload ${'x'.repeat(30)} ran with ${'a long warning that goes on '.repeat(6)}`);
    a3.provenance.db_path = `/tmp/${'nested-directory/'.repeat(8)}bench.db`;
    const reports = [a3, fixture('single')];
    fc.assert(
      fc.property(fc.integer({ min: 60, max: 160 }), fc.integer({ min: 0, max: 1 }), (width, i) => {
        expect(maxLineWidth(renderReportTable(reports[i]!, { json: '/tmp/x.json', width }))).toBeLessThanOrEqual(width);
      }),
      { numRuns: 60 },
    );
  });

  it('at --width 100 the headline rows and the routing-decisions line wrap instead of overflowing', () => {
    const a3 = fixture('a3');
    a3.headline = buildHeadline(a3);
    const text = renderReportTable(a3, { json: null, width: 100 });
    expect(maxLineWidth(text)).toBeLessThanOrEqual(100);
    expect(text).toContain('routing decisions:');
    // The method note is wrapped once, to the width less its indent: no orphan word on a line of its own.
    const lines = text.split('\n');
    const from = lines.findIndex((l) => l.startsWith('  (Paired'));
    const to = lines.findIndex((l, i) => i >= from && l.endsWith(')'));
    expect(from).toBeGreaterThan(0);
    for (const l of lines.slice(from, to + 1)) expect(l).toMatch(/^ {2}\S/);
    // Nothing is hidden from the headline: its comparison with the random router is there at any width.
    expect(renderReportTable(a3, { json: null, width: 60 })).toMatch(/vs random at its mix/);
  });

  it("states Pass R's target and measured shares, or why it did not run, in stdout and Markdown (issue 23 item 2)", () => {
    const a3 = fixture('a3');
    a3.protocol_metrics!.pass_r = { run: true, reason: null, strong_share_target: 0.25, strong_share_measured: 0.3 };
    const line = "Pass R (random router, run): each turn strong with probability 25.0% (Pass C's strong-call share); its coins sent 30.0% of its turns to the strong model.";
    expect(renderReportTable(a3, { json: null, width: null }).replace(/\n +/g, ' ')).toContain(line);
    expect(renderReportMarkdown(a3).replace(/\\/g, '')).toContain(line);
    a3.protocol_metrics!.pass_r = { run: false, reason: '--no-random-arm: the random router was not run', strong_share_target: null, strong_share_measured: null };
    expect(renderReportTable(a3, { json: null, width: null })).toContain('Pass R (random router) not run: --no-random-arm: the random router was not run.');
  });
});
