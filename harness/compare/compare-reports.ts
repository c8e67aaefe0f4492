import { Decimal } from 'decimal.js';
import type { Arm, CompareArtifact, CompareRow, Interval } from '../../schemas/types/compare.ts';
import type { BenchReport } from '../../schemas/types/report.ts';
import { intervalOf, pairedDifferenceParts, pairedSavingsParts, unitCorrelation, type ClusteredEstimate, type FigureKind, type FigureRange, type PairedUnit, type UnitValue } from '../metrics/index.ts';
import { DEFAULT_MARGIN_PTS, savingsClaim, solvedRateClaim } from '../report/verdict-grammar.ts';
import { passUnits, routedTurnUnits, workloadUnits, type Unit } from './rep-samples.ts';
import { tightnessVerdict } from '../metrics/tightness-verdict.ts';
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
  /** Why the row states no difference although both sides have a figure (pass@k at different k). */
  no_delta?: string;
}

const spec = (metric: string, scope: string, unit: RowUnit, a: Value, b: Value, paired: PairedFigure | string): RowSpec => ({ metric, scope, unit, a, b, paired });
const fig = (p: { units: PairedUnit[]; unmatched: number }, kind: FigureKind, scale = 1, range?: FigureRange): PairedFigure => ({ ...p, kind, scale, ...(range ? { range } : {}) });

/** One side's figure over the shared units, exact in Decimal: Σnum/Σden for a ratio (null when Σden is 0), Σnum for a total. */
function sideOf(values: readonly UnitValue[], kind: FigureKind, shape: (x: Decimal) => Decimal = (x) => x): string | null {
  if (values.length === 0) return null;
  const num = values.reduce((s, v) => s.plus(v.num), new Decimal(0));
  if (kind === 'total') return shape(num).toString();
  const den = values.reduce((s, v) => s.plus(v.den), new Decimal(0));
  return den.isZero() ? null : shape(num.div(den)).toString();
}

/**
 * A row whose A, B and difference are all taken over the units both reports hold, like its interval: a figure
 * of a whole report beside an interval of the shared units can lie outside it. `shape` maps the side's
 * ratio to the figure (savings: 100 · (1 − Σactual / Σbaseline)).
 */
function sharedSpec(metric: string, scope: string, unit: RowUnit, paired: PairedFigure, shape?: (x: Decimal) => Decimal): RowSpec {
  const side = (pick: (u: PairedUnit) => UnitValue) => sideOf(paired.units.map(pick), paired.kind, shape);
  return spec(metric, scope, unit, side((u) => u.a), side((u) => u.b), paired);
}

const savingsShape = (r: Decimal) => new Decimal(100).times(new Decimal(1).minus(r));

function text(v: Value): string | null {
  return v === null ? null : new Decimal(v).toString();
}

/** A row from its spec and its interval (or why there is none). */
export function rowOf(s: RowSpec, interval: Ci | string): CompareRow {
  const { metric, scope, unit, a, b } = s;
  const av = text(a);
  const bv = text(b);
  const missing = av === null || bv === null ? `${av === null ? 'A' : 'B'} has no ${metric}${typeof s.paired === 'string' || s.paired.units.length > 0 ? '' : ' on units both reports hold'}` : (s.no_delta ?? null);
  const ci = typeof interval === 'string' ? { ci: null, ci_reason: interval } : interval;
  return {
    metric,
    scope,
    unit,
    a: av,
    b: bv,
    delta: av !== null && bv !== null && !s.no_delta ? new Decimal(bv).minus(av).toString() : null,
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

/** The k of each side's pass@k over the workloads both hold, when the two sides used different k; null when they agree. */
export function passAtKMismatch(a: BenchReport, b: BenchReport, pass: string | null): string | null {
  const ks = (r: BenchReport) => new Map(r.workloads.filter((w) => pass === null || w.pass === pass).map((w) => [`${w.pass}\u0000${w.workload}`, w.k]));
  const ka = ks(a);
  const kb = ks(b);
  const shared = [...ka.keys()].filter((k) => kb.has(k));
  if (shared.every((k) => ka.get(k) === kb.get(k))) return null;
  const list = (m: Map<string, number>) => [...new Set(shared.map((k) => m.get(k)!))].sort((x, y) => x - y).join(', ');
  return `pass@k at different k (A k=${list(ka)}, B k=${list(kb)}): not comparable, no difference is claimed`;
}

/** savings, cost, quality, solved rate and pass@k over the runs of one pass (all passes when `pass` is null), each on the shared units. */
function runRows(a: BenchReport, b: BenchReport, pass: string | null): RowSpec[] {
  const scope = pass === null ? 'aggregate' : `pass ${pass}`;
  const ua = passUnits(a, pass);
  const ub = passUnits(b, pass);
  const wa = workloadUnits(a, pass);
  const wb = workloadUnits(b, pass);
  // Money stays exact: A's and B's cost are Decimal sums of the reports' own figures over the shared units.
  const keys = [...ua.keys()].filter((k) => ub.has(k));
  const usdSum = (m: typeof ua) => (keys.length ? keys.reduce((s, k) => s.plus(m.get(k)!.value.actualUsd), new Decimal(0)).toString() : null);
  const mismatch = passAtKMismatch(a, b, pass);
  const passAtK = sharedSpec('pass_at_k', scope, 'rate', fig(pair(wa, wb, (x) => ({ num: x ?? 0, den: x === null ? 0 : 1 })), 'ratio', 1, RATE_DIFF));
  return [
    // savings = 100 · (1 − Σactual / Σbaseline): the ratio's difference, scaled by −100.
    sharedSpec('savings_pct', scope, 'pct', fig(pair(ua, ub, (u) => ({ num: u.actual, den: u.baseline })), 'ratio', -100), savingsShape),
    spec('actual_cost_usd', scope, 'usd', usdSum(ua), usdSum(ub), fig(pair(ua, ub, (u) => ({ num: u.actual, den: 1 })), 'total')),
    sharedSpec('quality_mean', scope, 'score', fig(pair(ua, ub, (u) => ({ num: u.score ?? 0, den: u.score === null ? 0 : 1 })), 'ratio')),
    sharedSpec('solved_rate', scope, 'rate', fig(pair(ua, ub, (u) => ({ num: u.solved, den: 1 })), 'ratio', 1, RATE_DIFF)),
    mismatch ? { ...passAtK, paired: mismatch, no_delta: mismatch } : passAtK,
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
    sharedSpec('slot4_fire_rate', 'pass C', 'rate', share((t) => t.fired)),
    sharedSpec('slot4_inversion_rate', 'pass C', 'rate', share((t) => t.inverted)),
    sharedSpec('strong_call_rate', 'pass C', 'rate', share((t) => t.onStrong)),
    sharedSpec('savings_vs_measured_strong_pct', 'pass C', 'pct', measured, savingsShape),
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

/** The (pass, workload, rep) units both reports hold, and those only one side holds. */
export function sharedUnits(a: BenchReport, b: BenchReport): NonNullable<CompareArtifact['shared_units']> {
  const ua = passUnits(a, null);
  const ub = passUnits(b, null);
  const shared = [...ua.keys()].filter((k) => ub.has(k)).length;
  return { shared, only_a: ua.size - shared, only_b: ub.size - shared };
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

/** What a claim says instead when the comparison cannot distinguish the arms: nothing about the pair. */
export const INDISTINGUISHABLE_NO_CLAIM = 'no claim (the comparison cannot distinguish A and B here)';

/**
 * The claims compare prints, worded by the verdict grammar: B's savings against A on cost per scope
 * ("saved" only when the whole interval is above 0) and B's solved rate against A as non-inferiority at the margin.
 * When the arms routed identically (`indistinguishable`) every claim says so instead: having said "cannot
 * distinguish", compare never goes on to call one arm non-inferior to, or cheaper than, the other.
 */
export function buildClaims(
  savings: readonly { scope: string; estimate: ClusteredEstimate }[],
  solved: CompareRow | null,
  marginPts: number,
  indistinguishable = false,
): NonNullable<CompareArtifact['claims']> {
  const claims: NonNullable<CompareArtifact['claims']> = [];
  for (const s of savings) {
    const e = s.estimate;
    if (e.estimate === null) continue;
    const text = `cost (${s.scope}), B against A: ${indistinguishable ? INDISTINGUISHABLE_NO_CLAIM : savingsClaim({ estimate: e.estimate, low: e.ci_low, high: e.ci_high })}.`;
    claims.push({ figure: 'savings_pct', scope: s.scope, estimate: e.estimate, ci_low: e.ci_low, ci_high: e.ci_high, units: e.units, text });
  }
  if (solved && solved.delta !== null) {
    const d = { estimate: 100 * Number(solved.delta), low: solved.ci ? 100 * solved.ci.low : null, high: solved.ci ? 100 * solved.ci.high : null };
    const units = solved.ci?.units ?? 0;
    const text = `solved rate (${solved.scope}), B against A: ${indistinguishable ? INDISTINGUISHABLE_NO_CLAIM : solvedRateClaim(d, { marginPts, units })}.`;
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
    shared_units: sharedUnits(ra, rb),
    tightness_verdict: tightnessVerdict(ra, rb),
    routing,
    claims: buildClaims(savings, solvedRowFor(rows, routing?.pass ?? null), options.marginPts ?? DEFAULT_MARGIN_PTS, routing?.identical ?? false),
  };
}
