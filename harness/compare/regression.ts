import type { CompareArtifact, CompareRow } from '../../schemas/types/compare.ts';
import { num, pct, rate, usd } from '../report/format.ts';
import { signedPts } from '../report/verdict-grammar.ts';

/** The metrics `--fail-on-regression` watches by default: solved rate, quality and savings. */
export const DEFAULT_REGRESSION_METRICS: readonly string[] = ['solved_rate', 'quality_mean', 'savings_pct'];

/** The scopes it watches by default: the run as a whole. */
export const DEFAULT_REGRESSION_SCOPES: readonly string[] = ['aggregate'];

/** Metrics where a smaller value is better; every other metric is better when larger. */
const LOWER_IS_BETTER = new Set(['actual_cost_usd', 'quality_regret_rate', 'true_quality_regret_rate', 'cluster_inter']);

/** One watched row and what it says. */
export interface RegressionFinding {
  metric: string;
  scope: string;
  unit: CompareRow['unit'];
  a: string | null;
  b: string | null;
  delta: string | null;
  low: number | null;
  high: number | null;
  /** regression: B is worse and the whole 95% interval is on the worse side of 0; improvement: the mirror; noise: the interval holds 0; unknown: no interval. */
  verdict: 'regression' | 'improvement' | 'noise' | 'unknown';
  reason: string | null;
}

/**
 * `bench compare A B --fail-on-regression`: B regresses on a watched metric when it got worse by more
 * than the 95% paired interval of the change allows, i.e. the whole interval of B − A lies on the worse
 * side of zero. A change whose interval holds zero is noise; a row with no interval (too few units)
 * cannot fail the run and is said so.
 */
export function findRegressions(artifact: Pick<CompareArtifact, 'rows'>, metrics: readonly string[] = DEFAULT_REGRESSION_METRICS, scopes: readonly string[] = DEFAULT_REGRESSION_SCOPES): RegressionFinding[] {
  const watched = artifact.rows.filter((r: CompareRow) => metrics.includes(r.metric) && scopes.includes(r.scope));
  return watched.map((r) => {
    const base = { metric: r.metric, scope: r.scope, unit: r.unit, a: r.a, b: r.b, delta: r.delta, low: r.ci?.low ?? null, high: r.ci?.high ?? null };
    if (!r.ci) return { ...base, verdict: 'unknown' as const, reason: r.ci_reason ?? 'no interval' };
    const sign = LOWER_IS_BETTER.has(r.metric) ? -1 : 1;
    // Oriented so that positive is better.
    const lo = sign === 1 ? r.ci.low : -r.ci.high;
    const hi = sign === 1 ? r.ci.high : -r.ci.low;
    const verdict = hi < 0 ? 'regression' : lo > 0 ? 'improvement' : 'noise';
    return { ...base, verdict, reason: null };
  });
}

/** Watched metrics not found among the rows (a typo in --regression-metrics must not pass silently). */
export function unknownMetrics(artifact: Pick<CompareArtifact, 'rows'>, metrics: readonly string[]): string[] {
  const known = new Set(artifact.rows.map((r) => r.metric));
  return metrics.filter((m) => !known.has(m));
}

/** A value in its unit, as the compare table prints it. */
function value(unit: CompareRow['unit'], v: string | null): string {
  if (v === null) return 'n/a';
  return unit === 'pct' ? pct(v) : unit === 'usd' ? usd(v) : unit === 'rate' ? rate(Number(v)) : num(Number(v));
}

/** A difference in its unit: points for percents and rates (a difference of two rates is not a percent), else signed. */
function difference(unit: CompareRow['unit'], v: number): string {
  if (unit === 'pct') return signedPts(v, 1);
  if (unit === 'rate') return signedPts(100 * v, 1);
  const digits = unit === 'usd' ? 4 : 3;
  return signedPts(v, digits);
}

/** One line per watched row, for the console and the step summary: the change and its interval in the row's unit (pts for rates and percents). */
export function renderRegressionLines(findings: readonly RegressionFinding[]): string[] {
  return findings.map((f) => {
    const pts = f.unit === 'pct' || f.unit === 'rate' ? ' pts' : '';
    const change = f.delta === null ? 'no change figure' : `${difference(f.unit, Number(f.delta))}${pts}`;
    const ci = f.low === null || f.high === null ? 'no interval' : f.low === f.high ? 'no variation' : `95% CI [${difference(f.unit, f.low)}, ${difference(f.unit, f.high)}]${pts}`;
    const tag = f.verdict === 'regression' ? 'REGRESSION' : f.verdict === 'improvement' ? 'improved' : f.verdict === 'noise' ? 'within noise' : 'not decidable';
    return `${tag}: ${f.metric} (${f.scope}) ${value(f.unit, f.a)} -> ${value(f.unit, f.b)}, ${change}, ${ci}${f.reason ? ` (${f.reason})` : ''}`;
  });
}
