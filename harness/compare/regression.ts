import type { CompareArtifact, CompareRow } from '../../schemas/types/compare.ts';

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
    const base = { metric: r.metric, scope: r.scope, a: r.a, b: r.b, delta: r.delta, low: r.ci?.low ?? null, high: r.ci?.high ?? null };
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

/** One line per watched row, for the console and the step summary. */
export function renderRegressionLines(findings: readonly RegressionFinding[]): string[] {
  return findings.map((f) => {
    const ci = f.low === null || f.high === null ? 'no interval' : `95% CI [${f.low.toPrecision(3)}, ${f.high.toPrecision(3)}]`;
    const tag = f.verdict === 'regression' ? 'REGRESSION' : f.verdict === 'improvement' ? 'improved' : f.verdict === 'noise' ? 'within noise' : 'not decidable';
    return `${tag}: ${f.metric} (${f.scope}) ${f.a ?? 'n/a'} -> ${f.b ?? 'n/a'}, delta ${f.delta ?? 'n/a'}, ${ci}${f.reason ? ` (${f.reason})` : ''}`;
  });
}
