import { Decimal } from 'decimal.js';
import type { Analytics } from '../../runtime/analytics/index.ts';
import type { OracleMetrics, OracleRouterScores, OracleWorkloadArm } from '../../schemas/types/report.ts';
import type { WorkloadRunRecord } from '../runs/run-store.ts';
import { mean } from './stats.ts';
import {
  apgrVsRandom,
  DEFAULT_ORACLE_EPSILON,
  dominates,
  hindsightOracle,
  oracleCapture,
  qualityRegret,
  randomRouter,
  savingsRate,
  suitePoint,
  trueOracle,
  type ArmOnWorkload,
  type ArmPoint,
} from './oracle.ts';
import { strongCallShare } from './routing-metrics.ts';

/** The simulator's truth for the true oracle: P(solved) of a workload played wholly by a model; null when unknown. */
export type SolvedProbability = (workload: string, model: string) => number | null;

/** Routed passes scored against the oracles: in sample, and the leave-one-workload-out holdout when it ran. */
const ROUTED = [
  { pass: 'C', sample: 'in_sample' as const, random: 'random' },
  { pass: 'C-oos', sample: 'out_of_sample' as const, random: 'random_oos' },
];

/** Options of oracleMetrics. */
export interface OracleMetricsOptions {
  analytics: Analytics;
  records: readonly WorkloadRunRecord[];
  baseline: string;
  cheapModel: string;
  strongModel: string;
  epsilon?: number;
  /** The sim's exact P(solved), or a reason there is none (a real provider). */
  truth: { pSolved: SolvedProbability } | { unavailable: string };
}

/**
 * The `oracle` block of an A3 report (issue 13): per workload, the forced arms' cost and solved rate,
 * the hindsight and true oracles' choices, the random router at each routed pass's strong-call share,
 * and each routed pass's oracle capture, quality regret and APGR against random.
 */
export function oracleMetrics(o: OracleMetricsOptions): OracleMetrics {
  const epsilon = o.epsilon ?? DEFAULT_ORACLE_EPSILON;
  // Each (pass, workload)'s reps in record order, grouped once: every arm and routed pass below asks for one.
  const repsOf = new Map<string, WorkloadRunRecord[]>();
  for (const r of o.records) {
    const key = `${r.pass}\u0000${r.workload}`;
    const list = repsOf.get(key);
    if (list) list.push(r);
    else repsOf.set(key, [r]);
  }
  const armOf = (pass: string, workload: string, model: string): ArmOnWorkload | null => {
    const reps = repsOf.get(`${pass}\u0000${workload}`);
    if (!reps) return null;
    const cost = o.analytics.savings({ sessions: reps.flatMap((r) => r.session_ids) }, o.baseline).actual_repriced_usd;
    return {
      model,
      mean_cost_usd: new Decimal(cost).div(reps.length),
      solved_rate: reps.filter((r) => r.outcome === 'solved').length / reps.length,
      mean_score: mean(reps.map((r) => r.score).filter((s): s is number => s !== null)),
    };
  };
  // Workloads both forced arms and Pass C ran: every point below is over the same set.
  const names = [...new Set(o.records.filter((r) => r.pass === 'C').map((r) => r.workload))].sort();
  const rows = names.flatMap((w) => {
    const cheap = armOf('A', w, o.cheapModel);
    const strong = armOf('B', w, o.strongModel);
    return cheap && strong ? [{ workload: w, cheap, strong }] : [];
  });
  const hindsight = hindsightOracle(rows.map((r) => ({ workload: r.workload, arms: [r.cheap, r.strong] })), epsilon);
  const truth = 'pSolved' in o.truth ? o.truth.pSolved : null;
  // A workload no forced rep ever solved counts as unsolvable: its competent plan does not pass the check
  // (intentionally-failing-task), so P(all turns competent) is not P(solved) there (docs/decisions.md).
  const truthOf = (r: (typeof rows)[number], model: string): number | null => {
    if (!truth) return null;
    const p = truth(r.workload, model);
    return p === null ? null : r.cheap.solved_rate > 0 || r.strong.solved_rate > 0 ? p : 0;
  };
  const trueArms = truth
    ? rows.map((r) => ({
        workload: r.workload,
        arms: [r.cheap, r.strong].flatMap((a) => {
          const p = truthOf(r, a.model);
          return p === null ? [] : [{ model: a.model, mean_cost_usd: a.mean_cost_usd, p_solved: p }];
        }),
      }))
    : [];
  const exact = truth ? trueOracle(trueArms, epsilon) : null;

  const pointOf = (arms: readonly ArmOnWorkload[]): ArmPoint => suitePoint(arms.map((a) => ({ cost_usd: a.mean_cost_usd, solved_rate: a.solved_rate })));
  const A = pointOf(rows.map((r) => r.cheap));
  const B = pointOf(rows.map((r) => r.strong));
  const points: { arm: string; point: ArmPoint }[] = [
    { arm: 'A', point: A },
    { arm: 'B', point: B },
    { arm: 'oracle', point: hindsight.point },
    ...(exact ? [{ arm: 'true_oracle', point: exact.point }] : []),
  ];
  const routers: OracleRouterScores[] = [];
  for (const r of ROUTED) {
    const arms = rows.map((row) => armOf(r.pass, row.workload, 'routed'));
    if (rows.length === 0 || arms.some((a) => a === null)) continue;
    const routed = pointOf(arms as ArmOnWorkload[]);
    const decisions = o.analytics.routeChoices({ sessions: o.records.filter((x) => x.pass === r.pass).flatMap((x) => x.session_ids) });
    const share = strongCallShare(decisions, o.strongModel);
    const random = share === null ? null : randomRouter(A, B, share);
    points.push({ arm: r.pass, point: routed });
    if (random) points.push({ arm: r.random, point: random });
    routers.push({
      pass: r.pass,
      sample: r.sample,
      strong_call_rate: share,
      oracle_capture_rate: oracleCapture(B, hindsight.point, routed),
      quality_regret_rate: qualityRegret(hindsight.point, routed),
      true_oracle_capture_rate: exact ? oracleCapture(B, exact.point, routed) : null,
      true_quality_regret_rate: exact ? qualityRegret(exact.point, routed) : null,
      apgr_vs_random: random ? apgrVsRandom(A, B, routed, random) : null,
      beats_random: random ? dominates(routed, random) : null,
    });
  }
  const arm = (a: ArmOnWorkload, r: (typeof rows)[number]): OracleWorkloadArm => ({
    model: a.model,
    mean_cost_usd: money(a.mean_cost_usd),
    solved_rate: a.solved_rate,
    mean_score: a.mean_score,
    p_solved: truthOf(r, a.model),
  });
  return {
    epsilon,
    granularity: 'workload',
    true_oracle: truth ? { available: true, reason: null } : { available: false, reason: 'unavailable' in o.truth ? o.truth.unavailable : null },
    workloads: rows.map((r) => ({
      workload: r.workload,
      cheap: arm(r.cheap, r),
      strong: arm(r.strong, r),
      oracle_model: hindsight.choices.find((c) => c.workload === r.workload)?.model ?? null,
      true_oracle_model: exact?.choices.find((c) => c.workload === r.workload)?.model ?? null,
    })),
    points: points.map(({ arm: name, point }) => ({
      arm: name,
      cost_usd: money(point.cost_usd),
      solved_rate: point.solved_rate,
      savings_vs_strong_rate: savingsRate(B, point),
    })),
    routers,
  };
}

/** Money text for a per-rep mean (a quotient, so not exact): 10 decimal places, trailing zeros dropped. */
function money(d: Decimal): string {
  return d.toFixed(10).replace(/\.?0+$/, '');
}
