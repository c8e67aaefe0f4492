import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { BenchReport } from '../../schemas/types/report.ts';
import { REPO_ROOT } from '../../test/support/temp.ts';
import { loadReport } from './find-report.ts';
import { usd } from './format.ts';
import { renderReportTable } from './render-table.ts';

const fixture = (name: 'single' | 'a3'): BenchReport => structuredClone(loadReport(join(REPO_ROOT, 'test/fixtures/reports', `${name}.json`)).report);

describe('renderReportTable', () => {
  it('prints the banner first and last for a simulated run, and none when banner is null', () => {
    const sim = fixture('single');
    const lines = renderReportTable(sim, { json: null }).split('\n');
    expect(lines[0]).toBe(`*** ${sim.banner} ***`);
    expect(lines.at(-1)).toBe(`*** ${sim.banner} ***`);
    const plain = renderReportTable({ ...fixture('single'), banner: null }, { json: null });
    expect(plain).not.toContain('***');
    expect(plain.startsWith('=== Metis benchmark suite ===')).toBe(true);
  });

  it('uses the shared formatters: money to 4 decimals in each workload row, the A3 section with A3 metrics only', () => {
    const a3 = fixture('a3');
    const text = renderReportTable(a3, { json: '/x.json' });
    for (const w of a3.workloads) expect(text).toMatch(new RegExp(`${w.workload}\\s+│ ${w.pass}\\s+│.*│ ${usd(w.savings.actual_repriced_usd)}\\s+│`));
    expect(text).toContain('A3 protocol (cheap:');
    expect(renderReportTable(fixture('single'), { json: null })).not.toContain('A3 protocol');
  });
});
