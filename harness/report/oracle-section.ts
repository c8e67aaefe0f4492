import { Decimal } from 'decimal.js';
import type { OracleMetrics } from '../../schemas/types/report.ts';
import { hullGapPts } from '../metrics/oracle.ts';
import { num, rate, usd } from './format.ts';
import type { ReportBlock } from './report-document.ts';
import { signedPts } from './verdict-grammar.ts';

/** Label of the sim's model-based optimum: an expectation from the emulator's P(competent), never a measured arm. */
export const MODEL_OPTIMUM_LABEL = "emulator's model-based optimum (not measured)";

/** Row labels of the oracle's arms, in the order a reader compares them. */
const ARM_LABEL: Record<string, string> = {
  A: 'A (always cheap)',
  B: 'B (always strong)',
  oracle: 'hindsight oracle',
  true_oracle: MODEL_OPTIMUM_LABEL,
  C: 'C (routed, in sample)',
  random: 'random at C share',
  'C-oos': 'C-oos (routed, out of sample)',
  random_oos: 'random at C-oos share',
};

/** A difference of two rates (fractions) in points to one decimal; `n/a` when null. */
function signedPtsRate(x: number | null): string {
  return x === null ? 'n/a' : `${signedPts(100 * x, 1)} pts`;
}

/** The arms' points: cost of one rep of every workload, savings against B, solved rate; the model-based optimum last, apart from the measured arms. */
export function oracleArmRows(o: OracleMetrics): string[][] {
  const measured = o.points.filter((p) => p.arm !== 'true_oracle');
  const model = o.points.filter((p) => p.arm === 'true_oracle');
  return [...measured, ...model].map((p) => [ARM_LABEL[p.arm] ?? p.arm, usd(p.cost_usd), rate(p.savings_vs_strong_rate), rate(p.solved_rate)]);
}

/** Capture only beside its regret: a capture above 1 means nothing without the points it gave up. */
function captureCell(capture: number | null, regret: number | null): string {
  return capture === null && regret === null ? 'n/a' : `${num(capture)} / ${signedPtsRate(regret)}`;
}

/** The routed pass's hull gap in points, from the block's A, B and routed points; null when any is missing. */
export function routerHullGap(o: OracleMetrics, pass: string): number | null {
  const at = (arm: string) => {
    const p = o.points.find((x) => x.arm === arm);
    return p ? { cost_usd: new Decimal(p.cost_usd), solved_rate: p.solved_rate } : null;
  };
  const [a, b, r] = [at('A'), at('B'), at(pass)];
  return a && b && r ? hullGapPts(a, b, r) : null;
}

/** Each routed pass: the hull gap first, then capture with regret against each oracle, then against random. */
export function oracleRouterRows(o: OracleMetrics): string[][] {
  return o.routers.map((r) => {
    const gap = routerHullGap(o, r.pass);
    return [
      `${r.pass} (${r.sample.replace(/_/g, ' ')})`,
      rate(r.strong_call_rate),
      gap === null ? 'n/a' : `${signedPts(gap, 1)} pts`,
      captureCell(r.oracle_capture_rate, r.quality_regret_rate),
      captureCell(r.true_oracle_capture_rate, r.true_quality_regret_rate),
      num(r.apgr_vs_random),
      r.beats_random === null ? 'n/a' : r.beats_random ? 'yes' : 'no',
    ];
  });
}

export const ORACLE_ARM_HEAD = ['arm', 'cost $ (1 rep/workload)', 'saved vs B', 'solved rate'];
export const ORACLE_ROUTER_HEAD = ['routed pass', 'strong-call rate', 'hull gap', 'capture / regret (hindsight)', 'capture / regret (model-based, not measured)', 'APGR vs random', 'beats random'];

/** One-line statement of how the oracles were computed, and how to read capture. */
export function oracleNote(o: OracleMetrics): string {
  const truth = o.true_oracle.available
    ? `the ${MODEL_OPTIMUM_LABEL} is an expectation from the sim's P(competent) per turn, not an arm that ran`
    : `no model-based optimum (${o.true_oracle.reason ?? 'unavailable'})`;
  return `Oracles choose one model per workload (ε = ${o.epsilon} on mean gated score); ${truth}; the random router is the A/B expectation at the routed pass's strong-call share. Hull gap = routed solved rate − the best fixed A/B mix at the same cost, in pts. Capture = routed savings ÷ oracle savings, shown with regret = oracle solved rate − routed solved rate in pts; capture > 1 = saved more than the oracle by solving less.`;
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
    { kind: 'table', head: ORACLE_ROUTER_HEAD, rows: oracleRouterRows(o), numeric: [1, 2, 3, 4, 5] },
    { kind: 'table', head: ['workload', 'solved A / B', 'mean score A / B', 'P(solved) A / B (sim model)', 'hindsight oracle', 'model-based optimum'], rows: oracleWorkloadRows(o), numeric: [] },
  ];
}
