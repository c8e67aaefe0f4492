import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { BenchReport, Tightness } from '../../schemas/types/report.ts';
import { REPO_ROOT } from '../../test/support/temp.ts';
import { loadReport } from '../report/find-report.ts';
import { judgeTightness, tightnessVerdict } from './tightness-verdict.ts';

const t = (intra: number, inter: number): Tightness => ({ intra, inter, separation: intra - inter, fingerprints: 10, pairs_intra: 20, pairs_inter: 25 });
function a3(v1: Tightness | null, v2: Tightness | null): BenchReport {
  const r = structuredClone(loadReport(join(REPO_ROOT, 'test/fixtures/reports/a3.json')).report);
  r.protocol_metrics!.cluster_tightness = { v1, v2 };
  return r;
}

describe('§16.10 test 5 verdict', () => {
  it('passes when v2 intra rises by >= 0.10 and inter falls by >= 0.05 (boundaries included, exactly)', () => {
    const v = judgeTightness({ intra: 0.5, inter: 0.3 }, { intra: 0.6, inter: 0.25 }, 'a_v1_vs_b_v2');
    expect(v).toMatchObject({ verdict: 'pass', intra_gain: '0.1', inter_drop: '0.05', required_intra_gain: '0.10', required_inter_drop: '0.05' });
  });

  it('fails by intra when intra rises too little', () => {
    const v = judgeTightness({ intra: 0.5, inter: 0.3 }, { intra: 0.59, inter: 0.1 }, 'a_v1_vs_b_v2');
    expect(v.verdict).toBe('fail');
    expect(v.reason).toMatch(/^intra rose 0\.090/);
    expect(v.reason).not.toMatch(/inter/);
  });

  it('fails by inter when inter does not fall enough', () => {
    const v = judgeTightness({ intra: 0.5, inter: 0.3 }, { intra: 0.9, inter: 0.26 }, 'a_v1_vs_b_v2');
    expect(v.verdict).toBe('fail');
    expect(v.reason).toBe('inter fell 0.040 (it must fall by at least 0.05)');
  });

  it('words a change by its direction, never a negative rise', () => {
    const v = judgeTightness({ intra: 0.5, inter: 0.3 }, { intra: 0.326, inter: 0.4 }, 'a_v1_vs_b_v2');
    expect(v.reason).toBe('intra fell 0.174 (it must rise by at least 0.10); inter rose 0.100 (it must fall by at least 0.05)');
    expect(v.reason).not.toMatch(/−|-0/);
  });

  it("judges B's v2 against A's v1 first, else v1 and v2 within one report", () => {
    expect(tightnessVerdict(a3(t(0.4, 0.3), null), a3(null, t(0.6, 0.2)))).toMatchObject({ verdict: 'pass', source: 'a_v1_vs_b_v2', v1: { intra: 0.4 }, v2: { intra: 0.6 } });
    expect(tightnessVerdict(a3(null, null), a3(t(0.4, 0.3), t(0.45, 0.2)))).toMatchObject({ verdict: 'fail', source: 'within_b' });
    expect(tightnessVerdict(a3(t(0.4, 0.3), t(0.6, 0.2)), a3(null, null))).toMatchObject({ verdict: 'pass', source: 'within_a' });
  });

  it('is not applicable without both versions or with null figures', () => {
    expect(tightnessVerdict(a3(t(0.4, 0.3), null), a3(t(0.4, 0.3), null))).toMatchObject({ verdict: 'not_applicable', source: null, intra_gain: null });
    const nullIntra: Tightness = { ...t(0, 0), intra: null, separation: null };
    expect(tightnessVerdict(a3(t(0.4, 0.3), null), a3(null, nullIntra)).verdict).toBe('not_applicable');
  });
});
