import { Decimal } from 'decimal.js';
import type { Arm, CompareArtifact, CompareRow } from '../../schemas/types/compare.ts';
import type { BenchReport, PassSummary } from '../../schemas/types/report.ts';
import { bootstrapCI, DEFAULT_BOOTSTRAP, type BootstrapOptions } from './bootstrap.ts';
import { actualCost, meanScore, repTotals, routedRepTotals, routedShare, savingsPct, type RepTotals, type RoutedRepTotals } from './rep-samples.ts';
import { tightnessVerdict } from './tightness-verdict.ts';

/** One side of a comparison: the report, where it came from, and its column label. */
export interface CompareInput {
  report: BenchReport;
  path: string | null;
  label: string;
}

/** `compareReports` options; the bootstrap defaults are 2000 resamples at 95%. */
export interface CompareOptions {
  seed: number;
  iterations?: number;
  confidence?: number;
}

type Value = number | string | null;
type Unit = CompareRow['unit'];
type Interval = Pick<CompareRow, 'ci' | 'ci_reason'>;

const NO_SAMPLES = 'one figure over all reps; no per-rep samples';

function text(v: Value): string | null {
  return v === null ? null : new Decimal(v).toString();
}

function row(metric: string, scope: string, unit: Unit, a: Value, b: Value, interval: Interval | string): CompareRow {
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

/** The bootstrap interval of a per-rep statistic, or why there is none. */
function interval<T>(a: readonly T[], b: readonly T[], statistic: (xs: readonly T[]) => number | null, opts: BootstrapOptions): Interval {
  // One rep per arm resamples to itself: a zero-width "interval" would claim certainty it does not have.
  if (a.length < 2 || b.length < 2) return { ci: null, ci_reason: `needs >= 2 seed passes per arm (A has ${a.length}, B has ${b.length})` };
  const ci = bootstrapCI(a, b, statistic, opts);
  return ci ? { ci, ci_reason: null } : { ci: null, ci_reason: 'the statistic is undefined on most resamples' };
}

function meanPassAtK(report: BenchReport, pass: string | null): number | null {
  const xs = report.workloads.filter((w) => pass === null || w.pass === pass).map((w) => w.pass_at_k).filter((x): x is number => x !== null);
  return xs.length === 0 ? null : xs.reduce((s, x) => s + x, 0) / xs.length;
}

/** quality, savings, cost and pass@k over the runs of one pass (all passes when `pass` is null). */
function runRows(a: BenchReport, b: BenchReport, pass: string | null, opts: BootstrapOptions): CompareRow[] {
  const scope = pass === null ? 'aggregate' : `pass ${pass}`;
  const summary = (r: BenchReport): PassSummary | null => r.protocol_metrics?.passes.find((p) => p.pass === pass) ?? null;
  const figures = (r: BenchReport) => {
    if (pass === null) return { savings: r.aggregate.savings.savings_pct, cost: r.aggregate.savings.actual_repriced_usd, quality: r.aggregate.quality_mean };
    const s = summary(r);
    return { savings: s?.savings.savings_pct ?? null, cost: s?.actual_cost_usd ?? null, quality: s?.quality_mean ?? null };
  };
  const fa = figures(a);
  const fb = figures(b);
  const sa = repTotals(a, pass);
  const sb = repTotals(b, pass);
  const ci = (stat: (xs: readonly RepTotals[]) => number | null) => interval(sa, sb, stat, opts);
  return [
    row('savings_pct', scope, 'pct', fa.savings, fb.savings, ci(savingsPct)),
    row('actual_cost_usd', scope, 'usd', fa.cost, fb.cost, ci(actualCost)),
    row('quality_mean', scope, 'score', fa.quality, fb.quality, ci(meanScore)),
    row('pass_at_k', scope, 'fraction', meanPassAtK(a, pass), meanPassAtK(b, pass), 'pass@k is one figure over all k reps of a workload; no per-rep samples'),
  ];
}

/** Slot 4, strong-call share and the measured-arm figures of Pass C (spec §8.3). */
function routedRows(a: BenchReport, b: BenchReport, opts: BootstrapOptions): CompareRow[] {
  const pa = a.protocol_metrics;
  const pb = b.protocol_metrics;
  const sa = routedRepTotals(a);
  const sb = routedRepTotals(b);
  const ci = (count: (x: RoutedRepTotals) => number) => interval(sa, sb, routedShare(count), opts);
  return [
    row('slot4_fire_rate', 'pass C', 'fraction', pa?.slot4.fire_rate ?? null, pb?.slot4.fire_rate ?? null, ci((x) => x.fired)),
    row('slot4_inversion_rate', 'pass C', 'fraction', pa?.slot4.inversion_rate ?? null, pb?.slot4.inversion_rate ?? null, ci((x) => x.inverted)),
    row('strong_call_pct', 'pass C', 'fraction', pa?.strong_call_pct ?? null, pb?.strong_call_pct ?? null, ci((x) => x.onStrong)),
    row('savings_vs_measured_strong_pct', 'pass C', 'pct', pa?.savings_vs_measured_strong_pct ?? null, pb?.savings_vs_measured_strong_pct ?? null, NO_SAMPLES),
    row('performance_gap_recovered', 'pass C', 'score', pa?.performance_gap_recovered ?? null, pb?.performance_gap_recovered ?? null, NO_SAMPLES),
  ];
}

/** Cluster tightness under v1 and v2 similarity (pattern-store.md §16.10 test 5). */
function clusterRows(a: BenchReport, b: BenchReport): CompareRow[] {
  const reason = 'one figure over the run’s fingerprints; no per-rep samples';
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
 * seeded bootstrap CI over seed passes where the metric has per-rep samples; plus the §16.10 test-5 verdict.
 */
export function compareReports(a: CompareInput, b: CompareInput, options: CompareOptions): CompareArtifact {
  const opts: BootstrapOptions = { iterations: options.iterations ?? DEFAULT_BOOTSTRAP.iterations, confidence: options.confidence ?? DEFAULT_BOOTSTRAP.confidence, seed: options.seed };
  const ra = a.report;
  const rb = b.report;
  const passNames = [...new Set([...(ra.protocol_metrics?.passes ?? []), ...(rb.protocol_metrics?.passes ?? [])].map((p) => p.pass))].sort();
  const a3 = ra.protocol_metrics !== null || rb.protocol_metrics !== null;
  const rows = [
    ...runRows(ra, rb, null, opts),
    ...passNames.flatMap((p) => runRows(ra, rb, p, opts)),
    ...(a3 ? [...routedRows(ra, rb, opts), ...clusterRows(ra, rb)] : []),
  ];
  return {
    compare_version: 1,
    banner: ra.banner ?? rb.banner,
    a: arm(a),
    b: arm(b),
    bootstrap: opts,
    rows,
    tightness_verdict: tightnessVerdict(ra, rb),
  };
}
