import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { BenchReport } from '../../schemas/types/report.ts';
import { REPO_ROOT } from '../../test/support/temp.ts';
import { loadReport } from './find-report.ts';
import { buildHeadline, headlineVerdict } from './headline.ts';

const fixture = (name: 'single' | 'a3'): BenchReport => structuredClone(loadReport(join(REPO_ROOT, 'test/fixtures/reports', `${name}.json`)).report);

describe('the headline (issue 11 item 3)', () => {
  it('A3: Pass C against Pass B on the same (workload, rep) units, savings from measured spend', () => {
    const r = fixture('a3');
    const h = buildHeadline(r)!;
    expect(h).toMatchObject({ kind: 'routed_vs_measured_strong', routed_pass: 'C', strong_pass: 'B', units: 6, clusters: 3, unmatched_units: 0 });
    // The same figure as savings_vs_measured_strong_pct when every rep has a partner.
    expect(h.savings_pct.estimate).toBeCloseTo(Number(r.protocol_metrics!.savings_vs_measured_strong_pct), 9);
    expect(h.savings_pct.ci_low!).toBeLessThan(h.savings_pct.estimate!);
    for (const e of [h.solved_rate.routed, h.solved_rate.strong!]) {
      expect(e.ci_low!).toBeGreaterThanOrEqual(0);
      expect(e.ci_high!).toBeLessThanOrEqual(1);
    }
    expect(h.verdict).toMatch(/^routing \(Pass C\) saved 14% \[-?\d+, \d+\] against always-claude-sonnet-4-6 \(Pass B, measured\)/);
  });

  it('says "fewer tasks" when the whole solved-rate interval is below zero, and "cost more" for negative savings', () => {
    const h = buildHeadline(fixture('a3'))!;
    const worse = { ...h, savings_pct: { estimate: -12, ci_low: -20, ci_high: -4 }, solved_rate_diff_pts: { estimate: -20, ci_low: -30, ci_high: -10 } };
    expect(headlineVerdict(worse)).toMatch(/cost 12% more than always-claude-sonnet-4-6 .* but solved fewer tasks \(−20 pts \[−30, −10\]\)/);
    const better = { ...h, solved_rate_diff_pts: { estimate: 10, ci_low: 2, ci_high: 18 } };
    expect(headlineVerdict(better)).toMatch(/and solved more tasks \(\+10 pts \[\+2, \+18\]\)/);
    // An interval that holds 0 around a non-zero estimate is "no significant change", never "the same".
    const unclear = { ...h, solved_rate_diff_pts: { estimate: -11, ci_low: -24, ci_high: 2 } };
    expect(headlineVerdict(unclear)).toMatch(/with no significant change in solved rate \(−11 pts \[−24, \+2\]\)/);
    expect(headlineVerdict(unclear)).not.toContain('the same solved rate');
    const same = { ...h, solved_rate_diff_pts: { estimate: 0, ci_low: 0, ci_high: 0 } };
    expect(headlineVerdict(same)).toContain('at the same solved rate (0 pts [0, 0])');
  });

  it('moves a rep without a partner out of the units and counts it', () => {
    const r = fixture('a3');
    const c = r.workloads.find((w) => w.pass === 'C')!;
    c.reps = c.reps.slice(0, 1);
    expect(buildHeadline(r)).toMatchObject({ units: 5, unmatched_units: 1 });
  });

  it('Pass D, when run, gets its own comparison with B on its own workloads only', () => {
    const r = fixture('a3');
    const c = r.workloads.find((w) => w.pass === 'C')!;
    r.workloads.push({ ...structuredClone(c), pass: 'D' });
    const h = buildHeadline(r)!;
    expect(h.pass_d).toMatchObject({ routed_pass: 'D', strong_pass: 'B', units: c.reps.length, clusters: 1, unmatched_units: 0, pass_d: null });
    expect(h.pass_d!.savings_pct.ci_low).toBeNull();
    expect(h.pass_d!.verdict).toMatch(/^delegation \(Pass D\) .*\(no interval: fewer than 2 workloads\)/);
    expect(buildHeadline(fixture('a3'))!.pass_d).toBeNull();
  });

  it('single protocol: against the re-priced baseline, and the verdict says no strong arm was measured', () => {
    const h = buildHeadline(fixture('single'))!;
    expect(h).toMatchObject({ kind: 'actual_vs_repriced_baseline', strong_pass: null, solved_rate: { strong: null }, solved_rate_diff_pts: null });
    expect(h.verdict).toMatch(/re-priced on the same tokens.*no strong arm was measured/);
  });

  it('null for a signal run and for an A3 run without Pass C', () => {
    const s = fixture('single');
    s.provenance.protocol = 'signal';
    expect(buildHeadline(s)).toBeNull();
    const a = fixture('a3');
    a.workloads = a.workloads.filter((w) => w.pass !== 'C');
    expect(buildHeadline(a)).toBeNull();
  });
});
