import { Decimal } from 'decimal.js';
import type { Arm, CompareArtifact, CompareRow, Interval } from '../../schemas/types/compare.ts';
import type { BenchReport, PassSummary } from '../../schemas/types/report.ts';
import { intervalOf, pairedDifferenceParts, pairedSavingsParts, unitCorrelation, type ClusteredEstimate, type FigureKind, type FigureRange, type PairedUnit, type UnitValue } from '../metrics/index.ts';
import { DEFAULT_MARGIN_PTS, savingsClaim, solvedRateClaim } from '../report/verdict-grammar.ts';
import { passUnits, routedTurnUnits, workloadUnits, type Unit } from './rep-samples.ts';
import { tightnessVerdict } from './tightness-verdict.ts';
import { routingJudgement } from './routing-identity.ts';

/** One side of a comparison: the report, where it came from, and its column label. */
export interface CompareInput {
  report: BenchReport;
  path: string | null;
  label: string;
}

/** `compareReports` options: the interval level (default 95%) and the solved-rate non-inferiority margin in points (default 5). */
export interface CompareOptions {
  confidence?: number;
  marginPts?: number;
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

/** What a row's paired interval is taken over: the shared units, the figure's kind, its scale and range. */
export interface PairedFigure {
  units: PairedUnit[];
  unmatched: number;
  kind: FigureKind;
  scale: number;
  range?: FigureRange;
}

/** One row before its interval: A's and B's figures and what the interval is taken over, or why there is none. */
export interface RowSpec {
  metric: string;
  scope: string;
  unit: RowUnit;
  a: Value;
  b: Value;
  paired: PairedFigure | string;
}

const spec = (metric: string, scope: string, unit: RowUnit, a: Value, b: Value, paired: PairedFigure | string): RowSpec => ({ metric, scope, unit, a, b, paired });
const fig = (p: { units: PairedUnit[]; unmatched: number }, kind: FigureKind, scale = 1, range?: FigureRange): PairedFigure => ({ ...p, kind, scale, ...(range ? { range } : {}) });

function text(v: Value): string | null {
  return v === null ? null : new Decimal(v).toString();
}

/** A row from its spec and its interval (or why there is none). */
export function rowOf(s: RowSpec, interval: Ci | string): CompareRow {
  const { metric, scope, unit, a, b } = s;
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

/** Why a paired figure has no interval, or null when it can have one. */
export const NO_SHARED_UNITS = 'the reports share no (pass, workload, rep) unit';
export const UNDEFINED_FIGURE = 'the figure is undefined on the shared units (zero denominator)';

/** An interval from an estimate over `units` (any estimator: one run's CR2, or the two-level one over runs), or why there is none. */
export function ciOf(d: ClusteredEstimate, units: readonly PairedUnit[], unmatched: number, confidence: number, extra: Partial<Interval> = {}): Ci {
  if (d.estimate === null) return { ci: null, ci_reason: UNDEFINED_FIGURE };
  if (d.ci_low === null || d.ci_high === null || d.se === null)
    return { ci: null, ci_reason: `needs units from >= 2 workloads (the shared units cover ${d.clusters})` };
  return { ci: { low: d.ci_low, high: d.ci_high, confidence, se: d.se, units: d.units, clusters: d.clusters, unmatched_units: unmatched, correlation: unitCorrelation(units), ...extra }, ci_reason: null };
}

/** The paired, workload-clustered interval of figure(B) − figure(A), or why there is none. */
function interval(p: PairedFigure, confidence: number): Ci {
  if (p.units.length === 0) return { ci: null, ci_reason: NO_SHARED_UNITS };
  const clusters = new Set(p.units.map((u) => u.cluster)).size;
  const d = intervalOf(pairedDifferenceParts(p.units, p.kind, p.scale), p.units.length, clusters, confidence, p.range);
  return ciOf(d, p.units, p.unmatched, confidence);
}

function meanPassAtK(report: BenchReport, pass: string | null): number | null {
  const xs = report.workloads.filter((w) => pass === null || w.pass === pass).map((w) => w.pass_at_k).filter((x): x is number => x !== null);
  return xs.length === 0 ? null : xs.reduce((s, x) => s + x, 0) / xs.length;
}

/** savings, cost, quality, solved rate and pass@k over the runs of one pass (all passes when `pass` is null). */
function runRows(a: BenchReport, b: BenchReport, pass: string | null): RowSpec[] {
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
    spec('savings_pct', scope, 'pct', fa.savings, fb.savings, fig(pair(ua, ub, (u) => ({ num: u.actual, den: u.baseline })), 'ratio', -100)),
    spec('actual_cost_usd', scope, 'usd', fa.cost, fb.cost, fig(pair(ua, ub, (u) => ({ num: u.actual, den: 1 })), 'total')),
    spec('quality_mean', scope, 'score', fa.quality, fb.quality, fig(pair(ua, ub, (u) => ({ num: u.score ?? 0, den: u.score === null ? 0 : 1 })), 'ratio')),
    spec('solved_rate', scope, 'rate', fa.solved, fb.solved, fig(pair(ua, ub, (u) => ({ num: u.solved, den: 1 })), 'ratio', 1, RATE_DIFF)),
    spec('pass_at_k', scope, 'rate', meanPassAtK(a, pass), meanPassAtK(b, pass), fig(pair(wa, wb, (x) => ({ num: x ?? 0, den: x === null ? 0 : 1 })), 'ratio', 1, RATE_DIFF)),
  ];
}

/** Slot 4, strong-call rate and the measured-arm figures of Pass C (spec §8.3). */
function routedRows(a: BenchReport, b: BenchReport): RowSpec[] {
  const pa = a.protocol_metrics;
  const pb = b.protocol_metrics;
  const ta = routedTurnUnits(a);
  const tb = routedTurnUnits(b);
  const share = (count: (t: { fired: number; inverted: number; onStrong: number }) => number) => fig(pair(ta, tb, (t) => ({ num: count(t), den: 1 })), 'ratio', 1, RATE_DIFF);
  // B → C savings per (workload, rep): Pass C's cost over Pass B's, 100 · (1 − ΣC / ΣB).
  const measured = fig(pair(measuredUnits(a), measuredUnits(b), (u) => u), 'ratio', -100);
  return [
    spec('slot4_fire_rate', 'pass C', 'rate', pa?.slot4.fire_rate ?? null, pb?.slot4.fire_rate ?? null, share((t) => t.fired)),
    spec('slot4_inversion_rate', 'pass C', 'rate', pa?.slot4.inversion_rate ?? null, pb?.slot4.inversion_rate ?? null, share((t) => t.inverted)),
    spec('strong_call_rate', 'pass C', 'rate', pa?.strong_call_rate ?? null, pb?.strong_call_rate ?? null, share((t) => t.onStrong)),
    spec('savings_vs_measured_strong_pct', 'pass C', 'pct', pa?.savings_vs_measured_strong_pct ?? null, pb?.savings_vs_measured_strong_pct ?? null, measured),
    spec('performance_gap_recovered', 'pass C', 'score', pa?.performance_gap_recovered ?? null, pb?.performance_gap_recovered ?? null, 'a ratio of differences between three passes; no paired interval'),
  ];
}

/** The oracle block's figures (issue 13) for each routed pass either report scored: capture, regret, APGR against random. */
function oracleRows(a: BenchReport, b: BenchReport): RowSpec[] {
  const oa = a.protocol_metrics?.oracle ?? null;
  const ob = b.protocol_metrics?.oracle ?? null;
  const why = 'from per-workload means of three passes against an oracle chosen per report; no paired interval';
  const point = (o: typeof oa, arm: string) => o?.points.find((p) => p.arm === arm) ?? null;
  const rows = [spec('oracle_savings_vs_strong_rate', 'hindsight oracle', 'rate', point(oa, 'oracle')?.savings_vs_strong_rate ?? null, point(ob, 'oracle')?.savings_vs_strong_rate ?? null, why)];
  const passes = [...new Set([...(oa?.routers ?? []), ...(ob?.routers ?? [])].map((r) => r.pass))];
  for (const pass of passes) {
    const ra = oa?.routers.find((r) => r.pass === pass) ?? null;
    const rb = ob?.routers.find((r) => r.pass === pass) ?? null;
    const scope = `pass ${pass}`;
    // Capture is a ratio of savings (above 1 when the router solved less), not a rate: it prints as a number.
    rows.push(
      spec('oracle_capture_rate', scope, 'score', ra?.oracle_capture_rate ?? null, rb?.oracle_capture_rate ?? null, why),
      spec('quality_regret_rate', scope, 'rate', ra?.quality_regret_rate ?? null, rb?.quality_regret_rate ?? null, why),
      spec('true_oracle_capture_rate', scope, 'score', ra?.true_oracle_capture_rate ?? null, rb?.true_oracle_capture_rate ?? null, why),
      spec('true_quality_regret_rate', scope, 'rate', ra?.true_quality_regret_rate ?? null, rb?.true_quality_regret_rate ?? null, why),
      spec('apgr_vs_random', scope, 'score', ra?.apgr_vs_random ?? null, rb?.apgr_vs_random ?? null, why),
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
function clusterRows(a: BenchReport, b: BenchReport): RowSpec[] {
  const reason = 'one figure over the run’s fingerprints; no per-unit samples';
  return (['v1', 'v2'] as const).flatMap((v) => {
    const ta = a.protocol_metrics?.cluster_tightness[v] ?? null;
    const tb = b.protocol_metrics?.cluster_tightness[v] ?? null;
    return [
      spec('cluster_intra', v, 'score', ta?.intra ?? null, tb?.intra ?? null, reason),
      spec('cluster_inter', v, 'score', ta?.inter ?? null, tb?.inter ?? null, reason),
      spec('cluster_separation', v, 'score', ta?.separation ?? null, tb?.separation ?? null, reason),
    ];
  });
}

/** One side's arm description. */
export function arm(input: CompareInput): Arm {
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

/** Every row of two reports before its interval (the same list whether one pair is compared or many runs). */
export function rowSpecs(ra: BenchReport, rb: BenchReport): RowSpec[] {
  const passNames = [...new Set([...(ra.protocol_metrics?.passes ?? []), ...(rb.protocol_metrics?.passes ?? [])].map((p) => p.pass))].sort();
  const a3 = ra.protocol_metrics !== null || rb.protocol_metrics !== null;
  return [...runRows(ra, rb, null), ...passNames.flatMap((p) => runRows(ra, rb, p)), ...(a3 ? [...routedRows(ra, rb), ...oracleRows(ra, rb), ...clusterRows(ra, rb)] : [])];
}

/** The costs of every (pass, workload, rep) both reports hold in `pass` (all passes when null): A's cost in a.num, B's in b.num. */
export function costPairs(a: BenchReport, b: BenchReport, pass: string | null): PairedUnit[] {
  return pair(passUnits(a, pass), passUnits(b, pass), (u) => ({ num: u.actual, den: 1 })).units;
}

/** The scopes compare states a savings claim for: the whole run, and the routed pass routing is judged on. */
export function claimScopes(routingPass: string | null): { scope: string; pass: string | null }[] {
  return [{ scope: 'aggregate', pass: null }, ...(routingPass ? [{ scope: `pass ${routingPass}`, pass: routingPass }] : [])];
}

/** The solved-rate row a claim reads: the pass routing is judged on, else Pass C, else the aggregate. */
export function solvedRowFor(rows: readonly CompareRow[], routingPass: string | null): CompareRow | null {
  const solved = rows.filter((r) => r.metric === 'solved_rate' && r.delta !== null);
  return solved.find((r) => routingPass !== null && r.scope === `pass ${routingPass}` && r.ci) ?? solved.find((r) => r.scope === 'pass C' && r.ci) ?? solved.find((r) => r.scope === 'aggregate') ?? null;
}

/**
 * The claims compare prints, worded by the verdict grammar: B's savings against A on cost per scope
 * ("saved" only when the whole interval is above 0) and B's solved rate against A as non-inferiority at the margin.
 */
export function buildClaims(savings: readonly { scope: string; estimate: ClusteredEstimate }[], solved: CompareRow | null, marginPts: number): NonNullable<CompareArtifact['claims']> {
  const claims: NonNullable<CompareArtifact['claims']> = [];
  for (const s of savings) {
    const e = s.estimate;
    if (e.estimate === null) continue;
    const text = `cost (${s.scope}), B against A: ${savingsClaim({ estimate: e.estimate, low: e.ci_low, high: e.ci_high })}.`;
    claims.push({ figure: 'savings_pct', scope: s.scope, estimate: e.estimate, ci_low: e.ci_low, ci_high: e.ci_high, units: e.units, text });
  }
  if (solved && solved.delta !== null) {
    const d = { estimate: 100 * Number(solved.delta), low: solved.ci ? 100 * solved.ci.low : null, high: solved.ci ? 100 * solved.ci.high : null };
    const units = solved.ci?.units ?? 0;
    const text = `solved rate (${solved.scope}), B against A: ${solvedRateClaim(d, { marginPts, units })}.`;
    claims.push({ figure: 'solved_rate_diff_pts', scope: solved.scope, estimate: d.estimate, ci_low: d.low, ci_high: d.high, units, margin_pts: marginPts, text });
  }
  return claims;
}

/**
 * Two finished reports side by side (spec §8.4): one row per metric with A, B, the exact delta B − A and a
 * paired interval over the (pass, workload, rep) units both hold, clustered by workload; plus the §16.10 test-5 verdict.
 */
export function compareReports(a: CompareInput, b: CompareInput, options: CompareOptions = {}): CompareArtifact {
  const confidence = options.confidence ?? DEFAULT_CONFIDENCE;
  const ra = a.report;
  const rb = b.report;
  const rows = rowSpecs(ra, rb).map((s) => rowOf(s, typeof s.paired === 'string' ? s.paired : interval(s.paired, confidence)));
  const routing = routingJudgement(ra, rb);
  const savings = claimScopes(routing?.pass ?? null).map(({ scope, pass }) => {
    const units = costPairs(ra, rb, pass);
    const clusters = new Set(units.map((u) => u.cluster)).size;
    // Nothing can save more than everything.
    return { scope, estimate: intervalOf(units.length ? pairedSavingsParts(units) : null, units.length, clusters, confidence, [-Infinity, 100]) };
  });
  return {
    compare_version: 2,
    banner: ra.banner ?? rb.banner,
    a: arm(a),
    b: arm(b),
    statistics: { method: COMPARE_METHOD, confidence, cluster: 'workload' },
    rows,
    tightness_verdict: tightnessVerdict(ra, rb),
    routing,
    claims: buildClaims(savings, solvedRowFor(rows, routing?.pass ?? null), options.marginPts ?? DEFAULT_MARGIN_PTS),
  };
}
