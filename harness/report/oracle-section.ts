import type { OracleMetrics } from '../../schemas/types/report.ts';
import { num, rate, usd } from './format.ts';
import type { ReportBlock } from './report-document.ts';

/** Row labels of the oracle's arms, in the order a reader compares them. */
const ARM_LABEL: Record<string, string> = {
  A: 'A (always cheap)',
  B: 'B (always strong)',
  oracle: 'hindsight oracle',
  true_oracle: 'true oracle (sim)',
  C: 'C (routed, in sample)',
  random: 'random at C share',
  'C-oos': 'C-oos (routed, out of sample)',
  random_oos: 'random at C-oos share',
};

/** Signed fraction to one decimal of a percent; `n/a` when null. */
function signedRate(x: number | null): string {
  return x === null ? 'n/a' : `${x > 0 ? '+' : ''}${(x * 100).toFixed(1)}%`;
}

/** The arms' points: cost of one rep of every workload, savings against B, solved rate. */
export function oracleArmRows(o: OracleMetrics): string[][] {
  return o.points.map((p) => [ARM_LABEL[p.arm] ?? p.arm, usd(p.cost_usd), rate(p.savings_vs_strong_rate), rate(p.solved_rate)]);
}

/** Each routed pass against the oracles and the random router. */
export function oracleRouterRows(o: OracleMetrics): string[][] {
  return o.routers.map((r) => [
    `${r.pass} (${r.sample.replace(/_/g, ' ')})`,
    rate(r.strong_call_rate),
    num(r.oracle_capture_rate),
    num(r.true_oracle_capture_rate),
    signedRate(r.quality_regret_rate),
    signedRate(r.true_quality_regret_rate),
    num(r.apgr_vs_random),
    r.beats_random === null ? 'n/a' : r.beats_random ? 'yes' : 'no',
  ]);
}

export const ORACLE_ARM_HEAD = ['arm', 'cost $ (1 rep/workload)', 'saved vs B', 'solved rate'];
export const ORACLE_ROUTER_HEAD = ['routed pass', 'strong-call rate', 'oracle capture', 'true-oracle capture', 'quality regret', 'true-oracle regret', 'APGR vs random', 'beats random'];

/** One-line statement of how the oracles were computed. */
export function oracleNote(o: OracleMetrics): string {
  const truth = o.true_oracle.available ? 'true oracle from the sim\'s exact P(competent) per turn' : `no true oracle (${o.true_oracle.reason ?? 'unavailable'})`;
  return `Oracles choose one model per workload (ε = ${o.epsilon} on mean gated score); ${truth}; the random router is the A/B expectation at the routed pass's strong-call share. Capture = routed savings ÷ oracle savings; regret = oracle solved rate − routed solved rate.`;
}

/** Per workload, the forced arms and what each oracle chose. */
export function oracleWorkloadRows(o: OracleMetrics): string[][] {
  const p = (x: number | null) => (x === null ? 'n/a' : x.toFixed(2));
  return o.workloads.map((w) => [w.workload, `${rate(w.cheap.solved_rate)} / ${rate(w.strong.solved_rate)}`, `${num(w.cheap.mean_score)} / ${num(w.strong.mean_score)}`, `${p(w.cheap.p_solved)} / ${p(w.strong.p_solved)}`, w.oracle_model ?? 'n/a', w.true_oracle_model ?? 'n/a']);
}

/** The oracle part of the A3 section for Markdown and HTML. */
export function oracleBlocks(o: OracleMetrics): ReportBlock[] {
  return [
    { kind: 'text', text: oracleNote(o) },
    { kind: 'table', head: ORACLE_ARM_HEAD, rows: oracleArmRows(o), numeric: [1, 2, 3] },
    { kind: 'table', head: ORACLE_ROUTER_HEAD, rows: oracleRouterRows(o), numeric: [1, 2, 3, 4, 5, 6] },
    { kind: 'table', head: ['workload', 'solved A / B', 'mean score A / B', 'P(solved) A / B (sim)', 'oracle', 'true oracle'], rows: oracleWorkloadRows(o), numeric: [] },
  ];
}
