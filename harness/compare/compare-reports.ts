import { Decimal } from 'decimal.js';
import type { Arm, CompareArtifact, CompareRow, Interval } from '../../schemas/types/compare.ts';
import type { BenchReport, PassSummary } from '../../schemas/types/report.ts';
import { pairedDifference, unitCorrelation, type FigureKind, type FigureRange, type PairedUnit, type UnitValue } from '../metrics/index.ts';
import { passUnits, routedTurnUnits, workloadUnits, type Unit } from './rep-samples.ts';
import { tightnessVerdict } from './tightness-verdict.ts';
import { routingJudgement } from './routing-identity.ts';

/** One side of a comparison: the report, where it came from, and its column label. */
export interface CompareInput {
  report: BenchReport;
  path: string | null;
  label: string;
}

/** `compareReports` options: the interval level (default 95%). */
export interface CompareOptions {
  confidence?: number;
}

/** The level of every interval unless told otherwise. */
export const DEFAULT_CONFIDENCE = 0.95;

/** How the intervals are made, as the artifact states it. */
export const COMPARE_METHOD =
  'paired: each figure of B minus the same figure of A over the (pass, workload, rep) units both reports hold; CR2 (Bell–McCaffrey) standard errors clustered by workload (delta method over ratios of sums), t on the Bell–McCaffrey degrees of freedom (workloads − 1 when every workload has as many units) (Miller 2024, arXiv 2411.00640)';

// A difference of two rates lies in [−1, 1]; intervals are clipped there.
const RATE_DIFF: FigureRange = [-1, 1];

type Value = number | string | null;
type RowUnit = CompareRow['unit'];
type Ci = Pick<CompareRow, 'ci' | 'ci_reason'>;

function text(v: Value): string | null {
  return v === null ? null : new Decimal(v).toString();
}

function row(metric: string, scope: string, unit: RowUnit, a: Value, b: Value, interval: Ci | string): CompareRow {
  const av = text(a);
  const bv = text(b);
  const missing = av === null || bv === null ? `${av === null ? 'A' : 'B'} has no ${metric}` : null;
  const ci = typeof interval === 'string' ? { ci: null, ci_reason: interval } : interval;
  return {
    metric,
    scope,
    unit,
    a: av,
    b: bv,
    delta: av !== null && bv !== null ? new Decimal(bv).minus(av).toString() : null,
    ci: missing ? null : ci.ci,
    ci_reason: missing ?? ci.ci_reason,
  };
}

/** Units present in both reports, paired by key, each side's value taken by `value`. */
function pair<T>(a: ReadonlyMap<string, Unit<T>>, b: ReadonlyMap<string, Unit<T>>, value: (x: T) => UnitValue): { units: PairedUnit[]; unmatched: number } {
  const keys = [...a.keys()].filter((k) => b.has(k)).sort();
  return {
    units: keys.map((k) => ({ cluster: a.get(k)!.cluster, a: value(a.get(k)!.value), b: value(b.get(k)!.value) })),
    unmatched: a.size + b.size - 2 * keys.length,
  };
}

/** The paired, workload-clustered interval of figure(B) − figure(A), or why there is none. */
function interval(p: { units: PairedUnit[]; unmatched: number }, kind: FigureKind, confidence: number, scale = 1, range?: FigureRange): Ci {
  if (p.units.length === 0) return { ci: null, ci_reason: 'the reports share no (pass, workload, rep) unit' };
  const d = pairedDifference(p.units, kind, confidence, scale, range);
  if (d.estimate === null) return { ci: null, ci_reason: 'the figure is undefined on the shared units (zero denominator)' };
  if (d.ci_low === null || d.ci_high === null || d.se === null)
    return { ci: null, ci_reason: `needs units from >= 2 workloads (the shared units cover ${d.clusters})` };
  const ci: Interval = { low: d.ci_low, high: d.ci_high, confidence, se: d.se, units: d.units, clusters: d.clusters, unmatched_units: p.unmatched, correlation: unitCorrelation(p.units) };
  return { ci, ci_reason: null };
}

function meanPassAtK(report: BenchReport, pass: string | null): number | null {
  const xs = report.workloads.filter((w) => pass === null || w.pass === pass).map((w) => w.pass_at_k).filter((x): x is number => x !== null);
  return xs.length === 0 ? null : xs.reduce((s, x) => s + x, 0) / xs.length;
}

/** savings, cost, quality, solved rate and pass@k over the runs of one pass (all passes when `pass` is null). */
function runRows(a: BenchReport, b: BenchReport, pass: string | null, conf: number): CompareRow[] {
  const scope = pass === null ? 'aggregate' : `pass ${pass}`;
  const summary = (r: BenchReport): PassSummary | null => r.protocol_metrics?.passes.find((p) => p.pass === pass) ?? null;
  const figures = (r: BenchReport) => {
    if (pass === null) return { savings: r.aggregate.savings.savings_pct, cost: r.aggregate.savings.actual_repriced_usd, quality: r.aggregate.quality_mean, solved: r.aggregate.solved_rate };
    const s = summary(r);
    return { savings: s?.savings.savings_pct ?? null, cost: s?.actual_cost_usd ?? null, quality: s?.quality_mean ?? null, solved: s?.solved_rate ?? null };
  };
  const fa = figures(a);
  const fb = figures(b);
  const ua = passUnits(a, pass);
  const ub = passUnits(b, pass);
  const wa = workloadUnits(a, pass);
  const wb = workloadUnits(b, pass);
  return [
    // savings = 100 · (1 − Σactual / Σbaseline): the ratio's difference, scaled by −100.
    row('savings_pct', scope, 'pct', fa.savings, fb.savings, interval(pair(ua, ub, (u) => ({ num: u.actual, den: u.baseline })), 'ratio', conf, -100)),
    row('actual_cost_usd', scope, 'usd', fa.cost, fb.cost, interval(pair(ua, ub, (u) => ({ num: u.actual, den: 1 })), 'total', conf)),
    row('quality_mean', scope, 'score', fa.quality, fb.quality, interval(pair(ua, ub, (u) => ({ num: u.score ?? 0, den: u.score === null ? 0 : 1 })), 'ratio', conf)),
    row('solved_rate', scope, 'rate', fa.solved, fb.solved, interval(pair(ua, ub, (u) => ({ num: u.solved, den: 1 })), 'ratio', conf, 1, RATE_DIFF)),
    row('pass_at_k', scope, 'rate', meanPassAtK(a, pass), meanPassAtK(b, pass), interval(pair(wa, wb, (x) => ({ num: x ?? 0, den: x === null ? 0 : 1 })), 'ratio', conf, 1, RATE_DIFF)),
  ];
}

/** Slot 4, strong-call rate and the measured-arm figures of Pass C (spec §8.3). */
function routedRows(a: BenchReport, b: BenchReport, conf: number): CompareRow[] {
  const pa = a.protocol_metrics;
  const pb = b.protocol_metrics;
  const ta = routedTurnUnits(a);
  const tb = routedTurnUnits(b);
  const share = (count: (t: { fired: number; inverted: number; onStrong: number }) => number) => interval(pair(ta, tb, (t) => ({ num: count(t), den: 1 })), 'ratio', conf, 1, RATE_DIFF);
  // B → C savings per (workload, rep): Pass C's cost over Pass B's, 100 · (1 − ΣC / ΣB).
  const measured = interval(pair(measuredUnits(a), measuredUnits(b), (u) => u), 'ratio', conf, -100);
  return [
    row('slot4_fire_rate', 'pass C', 'rate', pa?.slot4.fire_rate ?? null, pb?.slot4.fire_rate ?? null, share((t) => t.fired)),
    row('slot4_inversion_rate', 'pass C', 'rate', pa?.slot4.inversion_rate ?? null, pb?.slot4.inversion_rate ?? null, share((t) => t.inverted)),
    row('strong_call_rate', 'pass C', 'rate', pa?.strong_call_rate ?? null, pb?.strong_call_rate ?? null, share((t) => t.onStrong)),
    row('savings_vs_measured_strong_pct', 'pass C', 'pct', pa?.savings_vs_measured_strong_pct ?? null, pb?.savings_vs_measured_strong_pct ?? null, measured),
    row('performance_gap_recovered', 'pass C', 'score', pa?.performance_gap_recovered ?? null, pb?.performance_gap_recovered ?? null, 'a ratio of differences between three passes; no paired interval'),
  ];
}

/** The oracle block's figures (issue 13) for each routed pass either report scored: capture, regret, APGR against random. */
function oracleRows(a: BenchReport, b: BenchReport): CompareRow[] {
  const oa = a.protocol_metrics?.oracle ?? null;
  const ob = b.protocol_metrics?.oracle ?? null;
  const why = 'from per-workload means of three passes against an oracle chosen per report; no paired interval';
  const point = (o: typeof oa, arm: string) => o?.points.find((p) => p.arm === arm) ?? null;
  const rows = [row('oracle_savings_vs_strong_rate', 'hindsight oracle', 'rate', point(oa, 'oracle')?.savings_vs_strong_rate ?? null, point(ob, 'oracle')?.savings_vs_strong_rate ?? null, why)];
  const passes = [...new Set([...(oa?.routers ?? []), ...(ob?.routers ?? [])].map((r) => r.pass))];
  for (const pass of passes) {
    const ra = oa?.routers.find((r) => r.pass === pass) ?? null;
    const rb = ob?.routers.find((r) => r.pass === pass) ?? null;
    const scope = `pass ${pass}`;
    // Capture is a ratio of savings (above 1 when the router solved less), not a rate: it prints as a number.
    rows.push(
      row('oracle_capture_rate', scope, 'score', ra?.oracle_capture_rate ?? null, rb?.oracle_capture_rate ?? null, why),
      row('quality_regret_rate', scope, 'rate', ra?.quality_regret_rate ?? null, rb?.quality_regret_rate ?? null, why),
      row('true_oracle_capture_rate', scope, 'score', ra?.true_oracle_capture_rate ?? null, rb?.true_oracle_capture_rate ?? null, why),
      row('true_quality_regret_rate', scope, 'rate', ra?.true_quality_regret_rate ?? null, rb?.true_quality_regret_rate ?? null, why),
      row('apgr_vs_random', scope, 'score', ra?.apgr_vs_random ?? null, rb?.apgr_vs_random ?? null, why),
    );
  }
  return rows;
}

/** Pass C's and Pass B's cost of each (workload, rep) of a report, as the numerator and denominator of B → C spend. */
function measuredUnits(r: BenchReport): Map<string, Unit<UnitValue>> {
  const c = passUnits(r, 'C');
  const strong = passUnits(r, 'B');
  const out = new Map<string, Unit<UnitValue>>();
  for (const [key, u] of c) {
    const k = `B${key.slice(1)}`;
    const s = strong.get(k);
    if (s) out.set(k, { cluster: u.cluster, value: { num: u.value.actual, den: s.value.actual } });
  }
  return out;
}

/** Cluster tightness under v1 and v2 similarity (pattern-store.md §16.10 test 5). */
function clusterRows(a: BenchReport, b: BenchReport): CompareRow[] {
  const reason = 'one figure over the run’s fingerprints; no per-unit samples';
  return (['v1', 'v2'] as const).flatMap((v) => {
    const ta = a.protocol_metrics?.cluster_tightness[v] ?? null;
    const tb = b.protocol_metrics?.cluster_tightness[v] ?? null;
    return [
      row('cluster_intra', v, 'score', ta?.intra ?? null, tb?.intra ?? null, reason),
      row('cluster_inter', v, 'score', ta?.inter ?? null, tb?.inter ?? null, reason),
      row('cluster_separation', v, 'score', ta?.separation ?? null, tb?.separation ?? null, reason),
    ];
  });
}

function arm(input: CompareInput): Arm {
  const p = input.report.provenance;
  return {
    label: input.label,
    report_path: input.path,
    run_id: p.run_id,
    protocol: p.protocol,
    fingerprint_version: p.fingerprint_version,
    actual_provider: p.actual_provider,
    seed: p.seed,
    seed_passes: p.seed_passes,
  };
}

/**
 * Two finished reports side by side (spec §8.4): one row per metric with A, B, the exact delta B − A and a
 * paired interval over the (pass, workload, rep) units both hold, clustered by workload; plus the §16.10 test-5 verdict.
 */
export function compareReports(a: CompareInput, b: CompareInput, options: CompareOptions = {}): CompareArtifact {
  const confidence = options.confidence ?? DEFAULT_CONFIDENCE;
  const ra = a.report;
  const rb = b.report;
  const passNames = [...new Set([...(ra.protocol_metrics?.passes ?? []), ...(rb.protocol_metrics?.passes ?? [])].map((p) => p.pass))].sort();
  const a3 = ra.protocol_metrics !== null || rb.protocol_metrics !== null;
  const rows = [
    ...runRows(ra, rb, null, confidence),
    ...passNames.flatMap((p) => runRows(ra, rb, p, confidence)),
    ...(a3 ? [...routedRows(ra, rb, confidence), ...oracleRows(ra, rb), ...clusterRows(ra, rb)] : []),
  ];
  return {
    compare_version: 2,
    banner: ra.banner ?? rb.banner,
    a: arm(a),
    b: arm(b),
    statistics: { method: COMPARE_METHOD, confidence, cluster: 'workload' },
    rows,
    tightness_verdict: tightnessVerdict(ra, rb),
    routing: routingJudgement(ra, rb),
  };
}
