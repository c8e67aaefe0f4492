import { join } from 'node:path';
import { Decimal } from 'decimal.js';
import { describe, expect, it } from 'vitest';
import { validatorFor } from '../../runtime/core/schemas.ts';
import type { CompareArtifact, CompareRow } from '../../schemas/types/compare.ts';
import type { BenchReport } from '../../schemas/types/report.ts';
import { REPO_ROOT } from '../../test/support/temp.ts';
import { loadReport } from '../report/find-report.ts';
import { compareReports } from './compare-reports.ts';
import { renderCompareTable } from './render-compare.ts';

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
  it('pairs only the units both reports hold and says how many were left out', () => {
    const a = fixture('a3');
    const b = fixture('a3');
    b.workloads = b.workloads.filter((w) => !(w.pass === 'C' && w.workload === a.workloads.find((x) => x.pass === 'C')!.workload));
    const s = find(compareReports(input(a), input(b)), 'solved_rate', 'pass C');
    expect(s.ci?.unmatched_units ?? 0).toBeGreaterThan(0);
  });

  it('a report compared with itself: every delta 0 and every interval exactly [0, 0], paired on every unit', () => {
    for (const name of ['a3', 'single'] as const) {
      const r = fixture(name);
      const artifact = compareReports(input(r, 'A'), input(r, 'B'));
      const withValues = artifact.rows.filter((x) => x.delta !== null);
      expect(withValues.length).toBeGreaterThan(name === 'a3' ? 20 : 4);
      for (const x of withValues) expect(new Decimal(x.delta!).isZero(), `${x.metric} ${x.scope}`).toBe(true);
      const withCi = artifact.rows.filter((x) => x.ci !== null);
      if (name === 'a3') expect(withCi.map((x) => x.metric)).toEqual(expect.arrayContaining(['savings_pct', 'quality_mean', 'solved_rate', 'slot4_fire_rate', 'strong_call_rate', 'savings_vs_measured_strong_pct']));
      for (const x of withCi) expect([x.ci!.low, x.ci!.high, x.ci!.se, x.ci!.unmatched_units], `${x.metric} ${x.scope}`).toEqual([0, 0, 0, 0]);
    }
  });

  it('covers the A3 metrics: per-pass savings, slot 4, measured arms and cluster tightness, with values from the reports', () => {
    const a3 = fixture('a3');
    const b = fixture('a3');
    // Six of B's sixteen fired routed turns no longer fire: 16/20 → 10/20 on the shared turns.
    b.protocol_metrics!.routed_turns.filter((t) => t.pattern_verdict === 'chose').slice(0, 6).forEach((t) => (t.pattern_verdict = 'not_applicable'));
    const artifact = compareReports(input(a3), input(b));
    // Every unit is shared, so the shared-unit figures are the reports' own (to float precision).
    expect(Number(find(artifact, 'savings_pct', 'pass C').a)).toBeCloseTo(13.97563771039944, 9);
    expect(find(artifact, 'slot4_fire_rate', 'pass C')).toMatchObject({ a: '0.8', b: '0.5', delta: '-0.3' });
    expect(Number(find(artifact, 'savings_vs_measured_strong_pct', 'pass C').a)).toBeCloseTo(14.00801513074889, 9);
    expect(find(artifact, 'performance_gap_recovered', 'pass C')).toMatchObject({ ci: null, ci_reason: expect.stringMatching(/no paired interval/) });
    expect(find(artifact, 'cluster_intra', 'v1').a).toBe(String(a3.protocol_metrics!.cluster_tightness.v1!.intra));
    expect(find(artifact, 'cluster_intra', 'v2')).toMatchObject({ a: null, b: null, delta: null, ci_reason: 'A has no cluster_intra' });
    for (const m of ['performance_gap_recovered', 'strong_call_rate', 'solved_rate', 'pass_at_k', 'actual_cost_usd']) expect(artifact.rows.some((r) => r.metric === m)).toBe(true);
  });

  it('money deltas are exact Decimal differences', () => {
    const a = fixture('a3');
    const b = fixture('a3');
    const rep = b.workloads[0]!.reps[0]!;
    rep.savings.actual_repriced_usd = new Decimal(rep.savings.actual_repriced_usd).plus('0.1').toString();
    expect(find(compareReports(input(a), input(b)), 'actual_cost_usd').delta).toBe('0.1');
  });

  it('A, B, delta and interval are all taken over the shared units: the delta lies inside its own interval, the unshared counted apart', () => {
    // The case: B ran more reps (and dearer ones) than A; the whole-report cost difference fell outside the shared-unit interval.
    const a = withScores([0.5, 0.6]);
    const b = withScores([0.55, 0.62, 0.9, 0.9]);
    b.workloads.forEach((w, i) => w.reps.forEach((r, j) => (r.savings.actual_repriced_usd = new Decimal(r.savings.actual_repriced_usd).plus(j >= 2 ? '1' : `0.00${i + j + 1}`).toString())));
    a.workloads.forEach((w) => (w.k = 2));
    b.workloads.forEach((w) => (w.k = 4));
    const artifact = compareReports(input(a), input(b));
    expect(artifact.shared_units).toEqual({ shared: 6, only_a: 0, only_b: 6 });
    const cost = find(artifact, 'actual_cost_usd');
    const sum = (r: BenchReport) => r.workloads.flatMap((w) => w.reps.slice(0, 2)).reduce((s, x) => s.plus(x.savings.actual_repriced_usd), new Decimal(0));
    expect(cost.a).toBe(sum(a).toString());
    expect(cost.b).toBe(sum(b).toString());
    expect(cost.delta).toBe(sum(b).minus(sum(a)).toString());
    for (const r of artifact.rows.filter((x) => x.ci && x.delta !== null)) {
      expect(Number(r.delta), `${r.metric} ${r.scope}`).toBeGreaterThanOrEqual(r.ci!.low - 1e-9);
      expect(Number(r.delta), `${r.metric} ${r.scope}`).toBeLessThanOrEqual(r.ci!.high + 1e-9);
    }
    // The whole reports' quality differs by far more than the shared units' (B's extra reps scored 0.9).
    expect(Number(find(artifact, 'quality_mean').delta)).toBeCloseTo((0.55 + 0.62 - 0.5 - 0.6) / 2, 9);
    // pass@k at k=2 against k=4: said so, and no difference claimed.
    expect(find(artifact, 'pass_at_k')).toMatchObject({ delta: null, ci: null, ci_reason: expect.stringContaining('pass@k at different k (A k=2, B k=4)') });
    const text = renderCompareTable(artifact, { json: null, width: null });
    expect(text).toContain('over the 6 (pass, workload, rep) units both reports hold; left out of them: 6 only in B.');
    expect(text).toContain('pass_at_k (aggregate): pass@k at different k (A k=2, B k=4): not comparable, no difference is claimed');
  });

  it('"cannot distinguish A and B" is never followed by a claim about the pair', () => {
    // The case: identical routing, then "non-inferior (within 5 pts): 0 pts (no variation)".
    const a = fixture('a3');
    const artifact = compareReports(input(a, 'A'), input(fixture('a3'), 'B'));
    expect(artifact.routing?.identical).toBe(true);
    for (const c of artifact.claims!) expect(c.text).toMatch(/B against A: no claim \(the comparison cannot distinguish A and B here\)\.$/);
    const text = renderCompareTable(artifact, { json: null, width: 120 });
    const after = text.slice(text.indexOf('cannot distinguish'));
    expect(after).not.toMatch(/non-inferior|saved|cost more|fewer tasks|no saving shown/);
  });

  it('a known shift (every score +0.2 in B) gives a delta of 0.2 and a paired interval of exactly [0.2, 0.2]', () => {
    const base = [0.5, 0.55, 0.6, 0.45, 0.52, 0.58];
    const artifact = compareReports(input(withScores(base)), input(withScores(base.map((x) => x + 0.2))));
    const q = find(artifact, 'quality_mean');
    expect(Number(q.delta)).toBeCloseTo(0.2, 9);
    // Paired: each unit moved by exactly 0.2, so nothing is left to be uncertain about.
    expect(q.ci!.low).toBeCloseTo(0.2, 9);
    expect(q.ci!.high).toBeCloseTo(0.2, 9);
    expect(q.ci).toMatchObject({ units: 18, clusters: 3, unmatched_units: 0 });
    expect(q.ci!.correlation).toBeCloseTo(1, 9);
  });

  it('a noisy shift gives an interval around the delta that excludes zero when the shift is large', () => {
    const a = withScores([0.51, 0.73, 0.62, 0.44, 0.58, 0.69]);
    const b = withScores([0.81, 0.92, 0.83, 0.71, 0.84, 0.97]);
    // Different workloads answer differently, so the clusters disagree a little.
    b.workloads[1]!.reps.forEach((x) => (x.score = Math.min(1, x.score! + 0.05)));
    const q = find(compareReports(input(a), input(b)), 'quality_mean');
    expect(q.ci!.low).toBeGreaterThan(0);
    expect(q.ci!.low).toBeLessThan(Number(q.delta));
    expect(q.ci!.high).toBeGreaterThan(Number(q.delta));
  });

  it('gives no interval, with the reason, when the shared units cover one workload', () => {
    const single = fixture('single');
    const artifact = compareReports(input(single), input(single));
    // One rep per workload still pairs: three workloads are three clusters.
    expect(find(artifact, 'quality_mean').ci).toMatchObject({ low: 0, high: 0, units: 3, clusters: 3 });
    const one = fixture('single');
    one.workloads = one.workloads.slice(0, 1);
    expect(find(compareReports(input(one), input(one)), 'quality_mean')).toMatchObject({ ci: null, ci_reason: 'needs units from >= 2 workloads (the shared units cover 1)' });
    // A single-protocol pair has no A3 rows and no test-5 figures.
    expect(artifact.rows.some((r) => r.metric === 'slot4_fire_rate')).toBe(false);
    expect(artifact.tightness_verdict.verdict).toBe('not_applicable');
  });

  it('single against A3: the A3-only metrics are n/a on the single side', () => {
    const artifact = compareReports(input(fixture('single')), input(fixture('a3')));
    // The two share no routed turn, so neither side has a figure on shared units.
    expect(find(artifact, 'slot4_inversion_rate', 'pass C')).toMatchObject({ a: null, b: null, delta: null, ci: null, ci_reason: 'A has no slot4_inversion_rate on units both reports hold' });
  });

  it('carries the simulated banner and validates against schemas/compare.schema.json', () => {
    const artifact = compareReports(input(fixture('single')), input(fixture('a3')));
    expect(artifact.banner).toMatch(/SIMULATED/);
    const validate = validatorFor<CompareArtifact>('compare.schema.json');
    expect(validate(artifact), JSON.stringify(validate.errors)).toBe(true);
  });
});
