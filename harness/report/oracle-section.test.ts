import { describe, expect, it } from 'vitest';
import type { OracleMetrics } from '../../schemas/types/report.ts';
import { ORACLE_ROUTER_HEAD, oracleArmRows, oracleBlocks, oracleNote, oracleRouterRows } from './oracle-section.ts';

const ORACLE: OracleMetrics = {
  epsilon: 0.02,
  granularity: 'workload',
  true_oracle: { available: false, reason: 'provider anthropic: only the simulated provider knows P(competent)' },
  workloads: [
    {
      workload: 'w',
      cheap: { model: 'h', mean_cost_usd: '0.1', solved_rate: 0.5, mean_score: 0.6, p_solved: null },
      strong: { model: 's', mean_cost_usd: '0.3', solved_rate: 1, mean_score: 0.9, p_solved: null },
      oracle_model: 's',
      true_oracle_model: null,
    },
  ],
  points: [
    { arm: 'B', cost_usd: '0.3', solved_rate: 1, savings_vs_strong_rate: 0 },
    { arm: 'oracle', cost_usd: '0.3', solved_rate: 1, savings_vs_strong_rate: 0 },
    { arm: 'C-oos', cost_usd: '0.2', solved_rate: 0.75, savings_vs_strong_rate: 1 / 3 },
  ],
  routers: [
    { pass: 'C-oos', sample: 'out_of_sample', strong_call_rate: 0.5, oracle_capture_rate: null, quality_regret_rate: 0.25, true_oracle_capture_rate: null, true_quality_regret_rate: null, apgr_vs_random: 0, beats_random: false },
  ],
};

describe('oracle rows of the A3 section', () => {
  it('label each arm, show savings and solved rate as percents, and say n/a where a figure is undefined', () => {
    expect(oracleArmRows(ORACLE)).toEqual([
      ['B (always strong)', '0.3000', '0.0%', '100.0%'],
      ['hindsight oracle', '0.3000', '0.0%', '100.0%'],
      ['C-oos (routed, out of sample)', '0.2000', '33.3%', '75.0%'],
    ]);
    // Regret is a difference of two rates: points, never "+25.0%"; capture never stands without it.
    expect(oracleRouterRows(ORACLE)).toEqual([['C-oos (out of sample)', '50.0%', 'n/a', 'n/a / +25.0 pts', 'n/a', '0.000', 'no']]);
  });
  it('shows capture only with regret, says what capture above 1 means, and leads with the hull gap (issue 23 item 3)', () => {
    const o: OracleMetrics = structuredClone(ORACLE);
    o.points.unshift({ arm: 'A', cost_usd: '0.1', solved_rate: 0.5, savings_vs_strong_rate: 2 / 3 });
    o.points.push({ arm: 'true_oracle', cost_usd: '0.15', solved_rate: 0.95, savings_vs_strong_rate: 0.5 });
    o.routers[0] = { ...o.routers[0]!, oracle_capture_rate: 2.346, true_oracle_capture_rate: 16.814, true_quality_regret_rate: 0.2 };
    const [row] = oracleRouterRows(o);
    // C-oos at $0.2 sits halfway between A ($0.1, 50%) and B ($0.3, 100%): the fixed mix solves 75%, C-oos 75%.
    expect(row!.slice(2, 5)).toEqual(['0.0 pts', '2.346 / +25.0 pts', '16.814 / +20.0 pts']);
    expect(ORACLE_ROUTER_HEAD.slice(2, 5)).toEqual(['hull gap', 'capture / regret (hindsight)', 'capture / regret (model-based, not measured)']);
    expect(oracleNote(o)).toContain('capture > 1 = saved more than the oracle by solving less');
    // The model-based optimum is named as such, and listed after every measured arm.
    const arms = oracleArmRows(o).map((r) => r[0]);
    expect(arms.at(-1)).toBe("emulator's model-based optimum (not measured)");
    expect(arms.join('|')).not.toMatch(/true oracle/);
  });
  it('say why there is no true oracle', () => {
    const note = oracleBlocks(ORACLE)[0]!;
    expect(note).toMatchObject({ kind: 'text' });
    expect((note as { text: string }).text).toContain('no model-based optimum (provider anthropic');
  });
});
