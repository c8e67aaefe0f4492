import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { BenchReport } from '../../schemas/types/report.ts';
import { REPO_ROOT } from '../../test/support/temp.ts';
import { maxLineWidth } from '../report/fit-table.ts';
import { loadReport } from '../report/find-report.ts';
import { compareReports } from './compare-reports.ts';
import { compareSolvedVerdict, renderCompareTable } from './render-compare.ts';

const fixture = (): BenchReport => structuredClone(loadReport(join(REPO_ROOT, 'test/fixtures/reports', 'a3.json')).report);
const input = (report: BenchReport, label: string) => ({ report, path: null, label });

describe('bench compare wording (issue 23 item 3)', () => {
  it('differences of rates and percents print in pts, and a [0, 0] interval from constant sides reads "no variation"', () => {
    const a = fixture();
    const b = fixture();
    b.protocol_metrics!.slot4.fire_rate = 0.5;
    const text = renderCompareTable(compareReports(input(a, 'A'), input(b, 'B')), { json: null, width: null });
    const line = (metric: string) => text.split('\n').find((l) => l.includes(metric))!;
    expect(line('slot4_fire_rate (pass C)')).toContain('−30.0 pts');
    expect(line('savings_pct (aggregate)')).toMatch(/│ 0\.0 pts\s+│ no variation/);
    expect(text).not.toMatch(/\[\+?0\.0%, \+?0\.0%\]/);
  });

  it('states B against A on solved rate in the verdict grammar, with the margin', () => {
    const a = fixture();
    const artifact = compareReports(input(a, 'A'), input(fixture(), 'B'));
    expect(compareSolvedVerdict(artifact)).toBe('solved rate (pass C), B against A: non-inferior (within 5 pts): 0 pts (no variation).');
    expect(renderCompareTable(artifact, { json: null, width: null })).toContain('non-inferior (within 5 pts)');
  });

  it('property-like sweep: every line fits widths 60 to 160', () => {
    const artifact = compareReports(input(fixture(), 'v1 with a long label'), input(fixture(), 'v2'));
    for (let width = 60; width <= 160; width += 7) expect(maxLineWidth(renderCompareTable(artifact, { json: '/tmp/a/very/long/path/compare.json', width }))).toBeLessThanOrEqual(width);
  });
});
