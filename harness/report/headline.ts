import type { BenchReport, Estimate, Headline, Rep, WorkloadResult } from '../../schemas/types/report.ts';
import { clusteredFigure, pairedDifference, pairedSavingsPct, unitCorrelation, type ClusteredEstimate, type PairedUnit } from '../metrics/index.ts';

// A solved rate lies in [0, 1]; its interval is clipped there.
const RATE = [0, 1] as const;

/** The level of every headline interval. */
export const HEADLINE_CONFIDENCE = 0.95;

const METHOD =
  'Paired on the same (workload, rep) units; standard errors clustered by workload (delta method over ratios of sums), 95% intervals with t on (workloads − 1) degrees of freedom, clipped to where the figure can lie (Miller 2024, arXiv 2411.00640).';

/** One rep as a headline unit: its cost and whether it was solved. */
interface UnitFacts {
  cost: number;
  solved: number;
}

function unitsOf(workloads: readonly WorkloadResult[], pass: string, cost: (r: Rep) => string): Map<string, { workload: string; facts: UnitFacts }> {
  const out = new Map<string, { workload: string; facts: UnitFacts }>();
  for (const w of workloads.filter((x) => x.pass === pass))
    for (const r of w.reps) out.set(`${w.workload}\u0000${r.rep}`, { workload: w.workload, facts: { cost: Number(cost(r)), solved: r.solved ? 1 : 0 } });
  return out;
}

function est(e: ClusteredEstimate): Estimate {
  return { estimate: e.estimate, ci_low: e.ci_low, ci_high: e.ci_high };
}

const short = (model: string) => model.replace(/^[a-z-]+:/, '');
const fixed = (x: number, digits: number) => (Object.is(Math.round(x * 10 ** digits), -0) ? 0 : x).toFixed(digits);
const signedPts = (x: number) => `${x > 0 ? '+' : x < 0 ? '−' : ''}${fixed(Math.abs(x), 0)}`;

function interval(e: Estimate, f: (x: number) => string): string {
  return e.ci_low === null || e.ci_high === null ? '(no interval: fewer than 2 workloads)' : `[${f(e.ci_low)}, ${f(e.ci_high)}]`;
}

/** The headline sentence: savings with its interval, then what happened to the solved rate. */
export function headlineVerdict(h: Omit<Headline, 'verdict'>): string {
  const s = h.savings_pct;
  const pctF = (x: number) => fixed(x, 0);
  const arm = h.kind === 'routed_vs_measured_strong' ? `${h.routed_pass === 'D' ? 'delegation' : 'routing'} (Pass ${h.routed_pass})` : `${short(h.routed_model)}`;
  const ref = h.kind === 'routed_vs_measured_strong' ? `always-${short(h.strong_model)} (Pass ${h.strong_pass}, measured)` : `${short(h.strong_model)} re-priced on the same tokens`;
  const saving =
    s.estimate === null
      ? `${arm} has no savings figure against ${ref} (the reference cost is zero)`
      : s.estimate >= 0
        ? `${arm} saved ${pctF(s.estimate)}% ${interval(s, pctF)} against ${ref}`
        : `${arm} cost ${pctF(-s.estimate)}% more than ${ref} (savings ${interval(s, pctF)})`;
  const scope = `on ${h.units} paired (workload, rep) units over ${h.clusters} workload${h.clusters === 1 ? '' : 's'}`;
  const d = h.solved_rate_diff_pts;
  const routed = h.solved_rate.routed.estimate;
  if (d === null || d.estimate === null) {
    const rate = routed === null ? 'no solved rate' : `a solved rate of ${fixed(100 * routed, 0)}% ${interval(h.solved_rate.routed, (x) => fixed(100 * x, 0))}`;
    return `${saving}, ${scope}, with ${rate}; re-pricing assumes ${short(h.strong_model)} would have used the same tokens, and no strong arm was measured, so this says nothing about quality at the strong model.`;
  }
  const diff = `${signedPts(d.estimate)} pts ${interval(d, signedPts)}`;
  const quality =
    d.ci_low === null || d.ci_high === null
      ? `with a solved-rate difference of ${diff}`
      : d.ci_high < 0
        ? `but solved fewer tasks (${diff})`
        : d.ci_low > 0
          ? `and solved more tasks (${diff})`
          : d.estimate === 0 && d.ci_low === 0 && d.ci_high === 0
            ? `at the same solved rate (${diff})`
            : // The interval holds 0 but the point estimate may not: say both, never claim "the same".
              `with no significant change in solved rate (${diff})`;
  return `${saving} ${quality}, ${scope}.`;
}

/**
 * The report's headline (issue 11 item 3): the routed Pass C against the measured strong Pass B on the
 * same (workload, rep) units for A3; for the single protocol, the run against its re-priced baseline.
 * Null when neither applies (a signal run, or an arm without reps).
 */
export function buildHeadline(report: Pick<BenchReport, 'provenance' | 'workloads' | 'protocol_metrics'>): Headline | null {
  const p = report.provenance;
  if (p.protocol === 'a3') {
    const c = routedAgainstStrong(report, 'C');
    return c ? { ...c, pass_d: routedAgainstStrong(report, 'D') } : null;
  }
  return p.protocol === 'single' ? againstRepriced(report) : null;
}

/** A routed pass against Pass B on the (workload, rep) units both ran; null when they share none. */
function routedAgainstStrong(report: Pick<BenchReport, 'provenance' | 'workloads' | 'protocol_metrics'>, routedPass: string): Headline | null {
  const p = report.provenance;
  const conf = HEADLINE_CONFIDENCE;
  const strong = unitsOf(report.workloads, 'B', (r) => r.savings.actual_repriced_usd);
  const routed = unitsOf(report.workloads, routedPass, (r) => r.savings.actual_repriced_usd);
  const keys = [...routed.keys()].filter((k) => strong.has(k)).sort();
  if (keys.length === 0) return null;
  // Pass D runs the delegation workloads only: B's other workloads are not its partners, and not "unmatched".
  const workloads = new Set(keys.map((k) => routed.get(k)!.workload));
  const unmatched = [...strong.values()].filter((u) => workloads.has(u.workload)).length + routed.size - 2 * keys.length;
  const pair = (f: (u: UnitFacts) => number): PairedUnit[] =>
    keys.map((k) => ({ cluster: strong.get(k)!.workload, a: { num: f(strong.get(k)!.facts), den: 1 }, b: { num: f(routed.get(k)!.facts), den: 1 } }));
  const solvedUnits = pair((u) => u.solved);
  const costUnits = pair((u) => u.cost);
  const savings = pairedSavingsPct(costUnits, conf);
  const h: Omit<Headline, 'verdict'> = {
    kind: 'routed_vs_measured_strong',
    routed_pass: routedPass,
    strong_pass: 'B',
    routed_model: 'routed',
    strong_model: report.protocol_metrics?.strong_model ?? p.strong_model ?? p.baseline_model,
    confidence: conf,
    units: keys.length,
    clusters: savings.clusters,
    unmatched_units: unmatched,
    savings_pct: est(savings),
    solved_rate: {
      routed: est(clusteredFigure(solvedUnits.map((u) => ({ cluster: u.cluster, value: u.b })), 'ratio', conf, 1, RATE)),
      strong: est(clusteredFigure(solvedUnits.map((u) => ({ cluster: u.cluster, value: u.a })), 'ratio', conf, 1, RATE)),
    },
    solved_rate_diff_pts: est(pairedDifference(solvedUnits, 'ratio', conf, 100, [-100, 100])),
    correlation: { solved: unitCorrelation(solvedUnits), cost: unitCorrelation(costUnits) },
    method: METHOD,
    pass_d: null,
  };
  return { ...h, verdict: headlineVerdict(h) };
}

/** The single protocol: the run against its baseline re-priced on the same tokens. */
function againstRepriced(report: Pick<BenchReport, 'provenance' | 'workloads'>): Headline | null {
  const p = report.provenance;
  const conf = HEADLINE_CONFIDENCE;
  const units = report.workloads.flatMap((w) =>
    w.reps.map((r) => ({ cluster: w.workload, a: { num: Number(r.savings.baseline_repriced_usd), den: 1 }, b: { num: Number(r.savings.actual_repriced_usd), den: 1 }, solved: r.solved ? 1 : 0 })),
  );
  if (units.length === 0) return null;
  const savings = pairedSavingsPct(units, conf);
  const h: Omit<Headline, 'verdict'> = {
    kind: 'actual_vs_repriced_baseline',
    routed_pass: null,
    strong_pass: null,
    routed_model: p.actual_model,
    strong_model: p.baseline_model,
    confidence: conf,
    units: units.length,
    clusters: savings.clusters,
    unmatched_units: 0,
    savings_pct: est(savings),
    solved_rate: { routed: est(clusteredFigure(units.map((u) => ({ cluster: u.cluster, value: { num: u.solved, den: 1 } })), 'ratio', conf, 1, RATE)), strong: null },
    solved_rate_diff_pts: null,
    correlation: { solved: null, cost: unitCorrelation(units) },
    method: `${METHOD} Against the baseline re-priced on the run's own tokens: both costs come from the same calls.`,
    pass_d: null,
  };
  return { ...h, verdict: headlineVerdict(h) };
}
