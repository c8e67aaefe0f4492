import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { BenchReport } from '../../schemas/types/report.ts';
import { REPO_ROOT } from '../../test/support/temp.ts';
import { compareReports } from './compare-reports.ts';
import { findRegressions, unknownMetrics } from './regression.ts';

const base = JSON.parse(readFileSync(join(REPO_ROOT, 'test/fixtures/reports/a3.json'), 'utf8')) as BenchReport;

/** A copy of the fixture whose every rep score moves by `shift(i)` (clamped to [0, 1]), as a night that changed. */
function shifted(shift: (i: number) => number): BenchReport {
  const r = structuredClone(base);
  let i = 0;
  for (const w of r.workloads) {
    for (const rep of w.reps) if (rep.score !== null) rep.score = Math.min(1, Math.max(0, rep.score + shift(i++)));
    const scores = w.reps.map((x) => x.score).filter((s): s is number => s !== null);
    w.quality_mean = scores.length ? scores.reduce((a, b) => a + b, 0) / scores.length : null;
  }
  const all = r.workloads.flatMap((w) => w.reps.map((x) => x.score)).filter((s): s is number => s !== null);
  r.aggregate.quality_mean = all.reduce((a, b) => a + b, 0) / all.length;
  return r;
}

const verdict = (b: BenchReport, a: BenchReport = base) => findRegressions(compareReports({ report: a, path: null, label: 'A' }, { report: b, path: null, label: 'B' }), ['quality_mean'], ['aggregate'])[0]!;

describe('--fail-on-regression', () => {
  it('flags a clear drop in quality: the whole 95% interval is below zero', () => {
    const f = verdict(shifted(() => -0.3));
    expect(f.verdict).toBe('regression');
    expect(f.high!).toBeLessThan(0);
  });

  it('lets a change inside the noise pass: the interval holds zero', () => {
    const f = verdict(shifted((i) => (i % 2 === 0 ? 0.05 : -0.05)));
    expect(f.verdict).toBe('noise');
    expect(f.low!).toBeLessThan(0);
    expect(f.high!).toBeGreaterThan(0);
  });

  it('calls a clear rise an improvement, never a regression', () => {
    // The night before was the bad one: tonight's scores are 0.3 higher on every rep.
    expect(verdict(base, shifted(() => -0.3)).verdict).toBe('improvement');
  });

  it('an identical report is not a regression', () => {
    expect(verdict(structuredClone(base)).verdict).toBe('noise');
  });

  it('lower-is-better metrics are oriented: a cost drop is not a regression', () => {
    const rows = [{ metric: 'actual_cost_usd', scope: 'aggregate', unit: 'usd' as const, a: '1', b: '0.5', delta: '-0.5', ci: { low: -0.6, high: -0.4, confidence: 0.95, se: 0.05, units: 9, clusters: 3, unmatched_units: 0, correlation: null }, ci_reason: null }];
    expect(findRegressions({ rows }, ['actual_cost_usd'], ['aggregate'])[0]!.verdict).toBe('improvement');
  });

  it('a row without an interval cannot fail the run, and says why', () => {
    const rows = [{ metric: 'solved_rate', scope: 'aggregate', unit: 'rate' as const, a: '1', b: '0', delta: '-1', ci: null, ci_reason: 'one workload' }];
    expect(findRegressions({ rows })[0]).toMatchObject({ verdict: 'unknown', reason: 'one workload' });
  });

  it('names watched metrics the comparison does not have', () => {
    expect(unknownMetrics({ rows: [] }, ['solved_rate', 'qualty'])).toEqual(['solved_rate', 'qualty']);
  });
});
