import { Decimal } from 'decimal.js';
import { describe, expect, it } from 'vitest';
import type { Analytics } from '../../runtime/analytics/index.ts';
import type { RepOutcome } from '../../runtime/evaluator/index.ts';
import type { WorkloadRunRecord } from '../runs/run-store.ts';
import { oracleMetrics } from './oracle-block.ts';

const H = 'anthropic:claude-haiku-4-5';
const S = 'anthropic:claude-sonnet-4-6';

/** A hand-made run: each rep one session whose cost and route the fake analytics answer. */
function fixture(reps: { pass: string; workload: string; cost: string; score: number; outcome: RepOutcome; routedTo?: string }[]) {
  const cost = new Map<string, Decimal>();
  const routes = new Map<string, string>();
  const records = reps.map((r, i): WorkloadRunRecord => {
    const sid = `s${i}`;
    cost.set(sid, new Decimal(r.cost));
    if (r.routedTo) routes.set(sid, r.routedTo);
    return { id: `w${i}`, run_id: 'run', workload: r.workload, pass: r.pass, rep: i, model: r.routedTo ?? 'm', signal_strength: 'high', session_ids: [sid], started_at_us: 0, ended_at_us: 0, turns: 1, score: r.score, confidence: 1, check: null, assertions: [], error: null, outcome: r.outcome };
  });
  const sessionsOf = (sel: unknown) => (sel as { sessions: string[] }).sessions;
  const analytics = {
    savings: (sel: unknown) => ({ actual_repriced_usd: sessionsOf(sel).reduce((s, id) => s.plus(cost.get(id)!), new Decimal(0)) }),
    routeDecisions: (sel: unknown) => sessionsOf(sel).filter((id) => routes.has(id)).map((id) => ({ session_id: id, turn_id: null, decision: { chosen_model: routes.get(id)!, winner_index: 0, elapsed_ms: 0, chain: [] } })),
    routeChoices: (sel: unknown) => sessionsOf(sel).filter((id) => routes.has(id)).map((id) => ({ session_id: id, turn_id: null, policy: null, chosen_model: routes.get(id)! })),
  } as unknown as Analytics;
  return { records, analytics };
}

describe('the oracle block of an A3 report', () => {
  // Workload "same": haiku as good as sonnet. Workload "hard": sonnet needed. Two reps per arm.
  const { records, analytics } = fixture([
    { pass: 'A', workload: 'same', cost: '0.10', score: 0.9, outcome: 'solved' },
    { pass: 'A', workload: 'same', cost: '0.10', score: 0.9, outcome: 'solved' },
    { pass: 'B', workload: 'same', cost: '0.30', score: 0.9, outcome: 'solved' },
    { pass: 'B', workload: 'same', cost: '0.30', score: 0.9, outcome: 'solved' },
    { pass: 'A', workload: 'hard', cost: '0.20', score: 0.3, outcome: 'unsolved' },
    { pass: 'A', workload: 'hard', cost: '0.20', score: 0.8, outcome: 'solved' },
    { pass: 'B', workload: 'hard', cost: '0.60', score: 0.9, outcome: 'solved' },
    { pass: 'B', workload: 'hard', cost: '0.60', score: 0.9, outcome: 'solved' },
    // Pass C sent "same" to sonnet once and "hard" to sonnet both times.
    { pass: 'C', workload: 'same', cost: '0.10', score: 0.9, outcome: 'solved', routedTo: H },
    { pass: 'C', workload: 'same', cost: '0.30', score: 0.9, outcome: 'solved', routedTo: S },
    { pass: 'C', workload: 'hard', cost: '0.60', score: 0.9, outcome: 'solved', routedTo: S },
    { pass: 'C', workload: 'hard', cost: '0.60', score: 0.9, outcome: 'solved', routedTo: S },
  ]);
  const truth = { pSolved: (w: string, m: string) => (w === 'same' ? (m === H ? 0.97 : 0.98) : m === H ? 0.5 : 0.95) };
  const o = oracleMetrics({ analytics, records, baseline: S, cheapModel: H, strongModel: S, truth });

  it('chooses haiku where it ties and sonnet where it is needed, with exact points', () => {
    expect(o.workloads.map((w) => [w.workload, w.oracle_model, w.true_oracle_model])).toEqual([
      ['hard', S, S],
      ['same', H, H],
    ]);
    const point = Object.fromEntries(o.points.map((p) => [p.arm, p]));
    expect(point.A).toMatchObject({ cost_usd: '0.3', solved_rate: 0.75 });
    expect(point.B).toMatchObject({ cost_usd: '0.9', solved_rate: 1, savings_vs_strong_rate: 0 });
    expect(point.oracle).toMatchObject({ cost_usd: '0.7', solved_rate: 1 }); // 0.10 + 0.60
    expect(point.oracle!.savings_vs_strong_rate).toBeCloseTo(2 / 9, 12);
    expect(point.C).toMatchObject({ cost_usd: '0.8', solved_rate: 1 }); // 0.20 + 0.60
    expect(point.true_oracle!.solved_rate).toBeCloseTo((0.97 + 0.95) / 2, 12);
    // Random at C's strong-call share 3/4: 0.3 + 0.75 · 0.6 = 0.75; solved 0.75 + 0.75 · 0.25.
    expect(point.random!.cost_usd).toBe('0.75');
    expect(point.random!.solved_rate).toBeCloseTo(0.9375, 12);
  });

  it('scores Pass C: capture 0.5 of the oracle\'s savings, no regret, and its APGR over random', () => {
    const [c] = o.routers;
    expect(c).toMatchObject({ pass: 'C', sample: 'in_sample', strong_call_rate: 0.75, beats_random: false });
    expect(c!.oracle_capture_rate).toBeCloseTo(1 / 9 / (2 / 9), 12);
    expect(c!.quality_regret_rate).toBeCloseTo(0, 12);
    expect(c!.apgr_vs_random).toBeCloseTo(1 - 0.75, 12);
    expect(c!.true_quality_regret_rate).toBeCloseTo(0.96 - 1, 12);
    expect(o.routers.some((r) => r.pass === 'C-oos')).toBe(false);
  });

  it('a workload no forced rep solved is unsolvable for the true oracle, and a real provider has no true oracle', () => {
    const f = fixture([
      { pass: 'A', workload: 'x', cost: '1', score: 0.2, outcome: 'unsolved' },
      { pass: 'B', workload: 'x', cost: '3', score: 0.2, outcome: 'unsolved' },
      { pass: 'C', workload: 'x', cost: '1', score: 0.2, outcome: 'unsolved', routedTo: H },
    ]);
    const sim = oracleMetrics({ ...f, baseline: S, cheapModel: H, strongModel: S, truth: { pSolved: () => 0.9 } });
    expect(sim.workloads[0]!.cheap.p_solved).toBe(0);
    expect(sim.workloads[0]!.true_oracle_model).toBe(H);
    const real = oracleMetrics({ ...f, baseline: S, cheapModel: H, strongModel: S, truth: { unavailable: 'provider anthropic' } });
    expect(real.true_oracle).toEqual({ available: false, reason: 'provider anthropic' });
    expect(real.points.map((p) => p.arm)).toEqual(['A', 'B', 'oracle', 'C', 'random']);
    expect(real.routers[0]!.true_oracle_capture_rate).toBeNull();
  });
});
