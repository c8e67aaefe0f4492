import { describe, expect, it } from 'vitest';
import type { OracleMetrics } from '../../schemas/types/report.ts';
import { oracleArmRows, oracleBlocks, oracleRouterRows } from './oracle-section.ts';

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
    expect(oracleRouterRows(ORACLE)).toEqual([['C-oos (out of sample)', '50.0%', 'n/a', 'n/a', '+25.0%', 'n/a', '0.000', 'no']]);
  });
  it('say why there is no true oracle', () => {
    const note = oracleBlocks(ORACLE)[0]!;
    expect(note).toMatchObject({ kind: 'text' });
    expect((note as { text: string }).text).toContain('no true oracle (provider anthropic');
  });
});
