import { join } from 'node:path';
import { Decimal } from 'decimal.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { BenchReport } from '../../schemas/types/report.ts';
import { REPO_ROOT } from '../../test/support/temp.ts';
import { maxLineWidth } from '../report/fit-table.ts';
import { loadReport } from '../report/find-report.ts';
import { compareReports } from './compare-reports.ts';
import { cell, compareSolvedVerdict, renderCompareTable, signed } from './render-compare.ts';
import { findRegressions, renderRegressionLines } from './regression.ts';

const fixture = (): BenchReport => structuredClone(loadReport(join(REPO_ROOT, 'test/fixtures/reports', 'a3.json')).report);
const input = (report: BenchReport, label: string) => ({ report, path: null, label });

describe('bench compare wording (issue 23 item 3)', () => {
  it('differences of rates and percents print in pts, and a [0, 0] interval from constant sides reads "no variation"', () => {
    const a = fixture();
    const b = fixture();
    b.protocol_metrics!.routed_turns.filter((t) => t.pattern_verdict === 'chose').slice(0, 6).forEach((t) => (t.pattern_verdict = 'not_applicable'));
    const text = renderCompareTable(compareReports(input(a, 'A'), input(b, 'B')), { json: null, width: null });
    const line = (metric: string) => text.split('\n').find((l) => l.includes(metric))!;
    expect(line('slot4_fire_rate (pass C)')).toContain('−30.0 pts');
    expect(line('savings_pct (aggregate)')).toMatch(/│ 0\.0 pts\s+│ no variation/);
    expect(text).not.toMatch(/\[\+?0\.0%, \+?0\.0%\]/);
  });

  it('states B against A on solved rate in the verdict grammar, with the margin; a zero-width interval makes no claim', () => {
    const a = fixture();
    const b = fixture();
    // Routing differs (one turn fires differently), so the arms are distinguishable, yet every outcome is the same.
    b.protocol_metrics!.routed_turns[0]!.chosen_model = 'anthropic:claude-haiku-4-5';
    const artifact = compareReports(input(a, 'A'), input(b, 'B'));
    expect(artifact.routing?.identical).toBe(false);
    expect(compareSolvedVerdict(artifact)).toBe('solved rate (pass C), B against A: no variation: no claim (0 pts, an interval of zero width from 6 paired units; margin 5 pts).');
    expect(renderCompareTable(artifact, { json: null, width: null })).not.toContain('non-inferior (within');
  });

  it('property-like sweep: every line fits widths 60 to 160', () => {
    const artifact = compareReports(input(fixture(), 'v1 with a long label'), input(fixture(), 'v2'));
    for (let width = 60; width <= 160; width += 7) expect(maxLineWidth(renderCompareTable(artifact, { json: '/tmp/a/very/long/path/compare.json', width }))).toBeLessThanOrEqual(width);
  });
});

/** The fixture with every rep's cost multiplied by the next of `factors` (cycled). */
function scaled(factors: readonly number[]): BenchReport {
  const r = fixture();
  let i = 0;
  for (const w of r.workloads) for (const rep of w.reps) rep.savings.actual_repriced_usd = new Decimal(rep.savings.actual_repriced_usd).times(factors[i++ % factors.length]!).toFixed(6);
  return r;
}

describe('bench compare claims in the verdict grammar (issue 23 item 2)', () => {
  const claim = (b: BenchReport, scope = 'aggregate') => compareReports(input(fixture(), 'A'), input(b, 'B')).claims!.find((c) => c.figure === 'savings_pct' && c.scope === scope)!;

  it('"saved" only when the whole interval of B\'s savings against A is above 0; "cost more" when below; else "no saving shown"', () => {
    expect(claim(scaled([0.5, 0.55, 0.6])).text).toMatch(/^cost \(aggregate\), B against A: saved 4\d% \[\d\d, \d\d\]\.$/);
    expect(claim(scaled([1.4, 1.5, 1.6])).text).toMatch(/^cost \(aggregate\), B against A: cost more \(savings −\d\d% \[−\d+, −\d+\]\)\.$/);
    expect(claim(scaled([0.6, 1.5, 0.9, 1.2, 1.0, 0.8])).text).toMatch(/^cost \(aggregate\), B against A: no saving shown \(−?\d+% \[−\d+, \d+\]\)\.$/);
    // The routed pass gets its own claim, and stdout prints every claim under the table.
    const text = renderCompareTable(compareReports(input(fixture(), 'A'), input(scaled([0.5, 0.55, 0.6]), 'B')), { json: null, width: null });
    expect(text).toMatch(/cost \(pass C\), B against A: saved/);
  });

  it('property: the claim never says more than the interval allows', () => {
    fc.assert(
      fc.property(fc.array(fc.double({ min: 0.2, max: 2, noNaN: true }), { minLength: 1, maxLength: 18 }), (factors) => {
        const c = claim(scaled(factors));
        if (c.ci_low === null || c.ci_high === null) return;
        // One factor for every unit moves each workload alike: a zero-width interval, which claims nothing.
        const width = c.ci_high > c.ci_low;
        expect(c.text.includes('no variation: no claim')).toBe(!width);
        expect(c.text.includes(': saved ')).toBe(width && c.ci_low > 0);
        expect(c.text.includes('cost more')).toBe(width && c.ci_high < 0);
        expect(c.text.includes('no saving shown')).toBe(width && !(c.ci_low > 0) && !(c.ci_high < 0));
      }),
      { numRuns: 40 },
    );
  });

  it('--fail-on-regression lines give differences of rates and percents in pts, with the interval in the same unit', () => {
    const b = fixture();
    for (const w of b.workloads) for (const rep of w.reps) rep.solved = false;
    b.aggregate.solved_rate = 0;
    const lines = renderRegressionLines(findRegressions(compareReports(input(fixture(), 'A'), input(b, 'B')), ['solved_rate'], ['aggregate']));
    expect(lines).toHaveLength(1);
    // Three workloads: t(2) keeps the interval wide, but its bounds are points like the change.
    expect(lines[0]).toBe('within noise: solved_rate (aggregate) 72.2% -> 0.0%, −72.2 pts, 95% CI [−100.0, +14.0] pts');
  });
});

describe('one minus sign', () => {
  it('money, scores and their intervals print − as the points columns do, never an ASCII hyphen', () => {
    expect(signed('score', -0.105)).toBe('\u22120.105');
    expect(cell('score', -0.105)).toBe('\u22120.105');
    expect(signed('usd', '-0.0818')).not.toMatch(/-/);
    expect(signed('usd', '-0.0818')).toMatch(/^\u2212/);
    expect(signed('usd', '0.0455')).toMatch(/^\+/);
  });
});
