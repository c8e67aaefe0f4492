import { join } from 'node:path';
import { Decimal } from 'decimal.js';
import { describe, expect, it } from 'vitest';
import { validatorFor } from '../../runtime/core/schemas.ts';
import type { CompareArtifact, CompareRow } from '../../schemas/types/compare.ts';
import type { BenchReport } from '../../schemas/types/report.ts';
import { REPO_ROOT } from '../../test/support/temp.ts';
import { loadReport } from '../report/find-report.ts';
import { compareReports } from './compare-reports.ts';

const fixture = (name: 'single' | 'a3'): BenchReport => structuredClone(loadReport(join(REPO_ROOT, 'test/fixtures/reports', `${name}.json`)).report);
const input = (report: BenchReport, label = 'X') => ({ report, path: null, label });
const find = (a: CompareArtifact, metric: string, scope = 'aggregate'): CompareRow => a.rows.find((r) => r.metric === metric && r.scope === scope)!;

/** The single fixture with `scores.length` reps per workload (rep i scoring scores[i]) and its aggregate quality to match. */
function withScores(scores: readonly number[]): BenchReport {
  const r = fixture('single');
  for (const w of r.workloads) w.reps = scores.map((score, rep) => ({ ...structuredClone(w.reps[0]!), rep, score }));
  const all = r.workloads.flatMap((w) => w.reps.map((x) => x.score!));
  r.aggregate.quality_mean = all.reduce((s, x) => s + x, 0) / all.length;
  return r;
}

describe('compareReports', () => {
  it('a report compared with itself: every delta is zero and every interval contains zero', () => {
    const a3 = fixture('a3');
    const artifact = compareReports(input(a3, 'A'), input(a3, 'B'), { seed: 0 });
    const withValues = artifact.rows.filter((r) => r.delta !== null);
    expect(withValues.length).toBeGreaterThan(15);
    for (const r of withValues) expect(new Decimal(r.delta!).isZero(), `${r.metric} ${r.scope}`).toBe(true);
    const withCi = artifact.rows.filter((r) => r.ci !== null);
    expect(withCi.map((r) => r.metric)).toEqual(expect.arrayContaining(['savings_pct', 'quality_mean', 'slot4_fire_rate', 'slot4_inversion_rate']));
    for (const r of withCi) {
      expect(r.ci!.low, `${r.metric} ${r.scope}`).toBeLessThanOrEqual(1e-9);
      expect(r.ci!.high, `${r.metric} ${r.scope}`).toBeGreaterThanOrEqual(-1e-9);
    }
  });

  it('covers the A3 metrics: per-pass savings, slot 4, measured arms and cluster tightness, with values from the reports', () => {
    const a3 = fixture('a3');
    const b = fixture('a3');
    b.protocol_metrics!.slot4.fire_rate = 0.5;
    const artifact = compareReports(input(a3), input(b), { seed: 0 });
    expect(find(artifact, 'savings_pct', 'pass C')).toMatchObject({ a: '13.975637710399439251', unit: 'pct' });
    expect(find(artifact, 'slot4_fire_rate', 'pass C')).toMatchObject({ a: '0.8', b: '0.5', delta: '-0.3' });
    expect(find(artifact, 'savings_vs_measured_strong_pct', 'pass C')).toMatchObject({ a: '14.008015130748891587', ci: null });
    expect(find(artifact, 'cluster_intra', 'v1').a).toBe(String(a3.protocol_metrics!.cluster_tightness.v1!.intra));
    expect(find(artifact, 'cluster_intra', 'v2')).toMatchObject({ a: null, b: null, delta: null, ci_reason: 'A has no cluster_intra' });
    for (const m of ['performance_gap_recovered', 'strong_call_pct', 'pass_at_k', 'actual_cost_usd']) expect(artifact.rows.some((r) => r.metric === m)).toBe(true);
  });

  it('money deltas are exact Decimal differences', () => {
    const a = fixture('a3');
    const b = fixture('a3');
    b.aggregate.savings.actual_repriced_usd = new Decimal(a.aggregate.savings.actual_repriced_usd).plus('0.1').toString();
    expect(find(compareReports(input(a), input(b), { seed: 0 }), 'actual_cost_usd').delta).toBe('0.1');
  });

  it('a known shift (every score +0.2 in B) gives a delta of 0.2 and a CI that excludes zero', () => {
    const base = [0.5, 0.55, 0.6, 0.45, 0.52, 0.58];
    const artifact = compareReports(input(withScores(base)), input(withScores(base.map((x) => x + 0.2))), { seed: 0 });
    const q = find(artifact, 'quality_mean');
    expect(Number(q.delta)).toBeCloseTo(0.2, 9);
    expect(q.ci!.low).toBeGreaterThan(0);
    expect(q.ci!.high).toBeGreaterThanOrEqual(0.2 - 1e-9);
    expect(q.ci).toMatchObject({ samples_a: 6, samples_b: 6 });
  });

  it('is reproducible for a bootstrap seed and changes with it', () => {
    // Ten irregular reps, so the resampled means rarely tie and two seeds land on different percentiles.
    const a = withScores([0.51, 0.73, 0.62, 0.44, 0.58, 0.69, 0.47, 0.55, 0.66, 0.6]);
    const b = withScores([0.61, 0.82, 0.53, 0.71, 0.64, 0.77, 0.59, 0.68, 0.74, 0.57]);
    const first = compareReports(input(a), input(b), { seed: 1 });
    expect(compareReports(input(a), input(b), { seed: 1 })).toEqual(first);
    const other = compareReports(input(a), input(b), { seed: 2 });
    expect(find(other, 'quality_mean').ci).not.toEqual(find(first, 'quality_mean').ci);
    expect(other.bootstrap).toEqual({ iterations: 2000, confidence: 0.95, seed: 2 });
  });

  it('gives no interval, with the reason, for one seed pass or a metric without per-rep samples', () => {
    const single = fixture('single');
    const artifact = compareReports(input(single), input(single), { seed: 0 });
    expect(find(artifact, 'quality_mean')).toMatchObject({ ci: null, ci_reason: 'needs >= 2 seed passes per arm (A has 1, B has 1)' });
    expect(find(artifact, 'pass_at_k').ci_reason).toMatch(/no per-rep samples/);
    // A single-protocol pair has no A3 rows and no test-5 figures.
    expect(artifact.rows.some((r) => r.metric === 'slot4_fire_rate')).toBe(false);
    expect(artifact.tightness_verdict.verdict).toBe('not_applicable');
  });

  it('single against A3: the A3-only metrics are n/a on the single side', () => {
    const artifact = compareReports(input(fixture('single')), input(fixture('a3')), { seed: 0 });
    expect(find(artifact, 'slot4_inversion_rate', 'pass C')).toMatchObject({ a: null, b: '0.8', delta: null, ci: null, ci_reason: 'A has no slot4_inversion_rate' });
  });

  it('carries the simulated banner and validates against schemas/compare.schema.json', () => {
    const artifact = compareReports(input(fixture('single')), input(fixture('a3')), { seed: 0 });
    expect(artifact.banner).toMatch(/SIMULATED/);
    const validate = validatorFor<CompareArtifact>('compare.schema.json');
    expect(validate(artifact), JSON.stringify(validate.errors)).toBe(true);
  });
});
