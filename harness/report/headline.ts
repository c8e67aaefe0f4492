import { Decimal } from 'decimal.js';
import type { BenchReport, Estimate, Headline, Rep, VsRandom, WorkloadResult } from '../../schemas/types/report.ts';
import { clusteredFigure, pairedDifference, pairedSavingsPct, unitCorrelation, unitsNeededForNonInferiority, type ClusteredEstimate, type PairedUnit } from '../metrics/index.ts';
import { usd } from './format.ts';
import { aboveClaim, DEFAULT_MARGIN_PTS, intervalText, plainPct, savingsClaim, solvedRateClaim, solvedRateClause, type IntervalFigure, type UnitsNeeded } from './verdict-grammar.ts';

// A solved rate lies in [0, 1]; its interval is clipped there.
const RATE = [0, 1] as const;

/** The level of every headline interval. */
export const HEADLINE_CONFIDENCE = 0.95;

const METHOD =
  'Paired on the same (workload, rep) units; CR2 (Bell–McCaffrey) standard errors clustered by workload (delta method over ratios of sums), 95% intervals with t on the Bell–McCaffrey degrees of freedom (workloads − 1 when every workload has as many units), clipped to where the figure can lie (Miller 2024, arXiv 2411.00640).';

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

/** What the headline's wording needs beyond the figures: how many units would decide an inconclusive claim. */
export interface HeadlineWordingOptions {
  /** What the run spent (Decimal text, USD), led with by the single protocol's headline. */
  spentUsd?: string;
  /** Replaces the normal approximation (the power module of `bench plan` plugs in here). */
  unitsNeeded?: UnitsNeeded;
  /** The cheap model, named when the router never left it. */
  cheapModel?: string;
}

const figure = (e: Estimate): IntervalFigure => ({ estimate: e.estimate ?? 0, low: e.ci_low, high: e.ci_high });

/** "The router never used the strong model…" when the routed pass's strong-call rate is 0 or 1; null otherwise. */
export function degenerateRoutingNote(h: Pick<Headline, 'routed_pass' | 'strong_call_rate' | 'strong_model'> & { cheap_model?: string }): string | null {
  const r = h.strong_call_rate;
  if (r === null || r === undefined || (r !== 0 && r !== 1)) return null;
  const pass = `Pass ${h.routed_pass}`;
  const cheap = h.cheap_model ? short(h.cheap_model) : 'the cheap model';
  return r === 0
    ? `The router never used the strong model (strong-call rate 0%): ${pass} ran every routed turn on ${cheap}, so its savings are the ${cheap}/${short(h.strong_model)} price ratio plus token noise, not a routing result.`
    : `The router never used the cheap model (strong-call rate 100%): ${pass} ran every routed turn on ${short(h.strong_model)}, so its savings are token noise at the same price, not a routing result.`;
}

/**
 * The routed pass against the random router at its mix, both ways, each with its paired interval:
 * "above random at its mix (interpolated A/B)" and, when Pass R ran, "above the random router that ran
 * (Pass R)"; then which one the verdict uses (the measured arm whenever it ran).
 */
export function vsRandomSentence(v: VsRandom): string {
  const pct = (x: number) => `${fixed(100 * x, 0)}%`;
  const interpolated = aboveClaim(figure(v.interpolated), 'random at its mix (interpolated A/B)');
  const head = `Against random at its mix (${pct(v.strong_share)} strong calls): ${interpolated}`;
  if (!v.measured) return `${head}; no random router was run (Pass R), so the verdict uses the interpolation, the expectation of a random router at that share, not a router that was run.`;
  const share = v.measured_strong_share === undefined || v.measured_strong_share === null ? '' : `, ${pct(v.measured_strong_share)} of its turns strong`;
  const measured = aboveClaim(figure(v.measured), `the random router that ran (Pass R${share})`);
  const uses = v.used === 'measured' ? 'the verdict uses the measured arm, Pass R' : 'the verdict uses the interpolation';
  return `${head}; ${measured}; ${uses}.`;
}

/**
 * The power module's answer (bench plan's, issue 23 item 6) as the grammar's units-needed function: σ per unit
 * from the observed interval's half-width on t(clusters − 1), 95% intervals, 80% power.
 */
export function powerUnitsNeeded(clusters: number): UnitsNeeded {
  return (d, marginPts, units) => {
    if (d.low === null || d.high === null || !(marginPts > 0) || units < 1) return null;
    return unitsNeededForNonInferiority({ observedDiff: d.estimate, margin: marginPts, n: units, halfWidth: (d.high - d.low) / 2, ...(clusters > 1 ? { df: clusters - 1 } : {}), confidence: HEADLINE_CONFIDENCE }).units;
  };
}

/** The headline in words (the single protocol's: `repricedVerdict`): savings as the interval allows, the solved rate as non-inferiority at the margin, then routing against random. */
export function headlineVerdict(h: Omit<Headline, 'verdict'>, options: HeadlineWordingOptions = {}): string {
  const s = h.savings_pct;
  const arm = h.kind === 'routed_vs_measured_strong' ? `${h.routed_pass === 'D' ? 'delegation' : 'routing'} (Pass ${h.routed_pass})` : `${short(h.routed_model)}`;
  const ref = h.kind === 'routed_vs_measured_strong' ? `always-${short(h.strong_model)} (Pass ${h.strong_pass}, measured)` : `${short(h.strong_model)} re-priced on the same tokens`;
  // One run's interval sees workload and rep noise only: the learned state (whether slot 4 fired at all) is shared by every unit of the run.
  const scope = `on ${h.units} paired (workload, rep) units over ${h.clusters} workload${h.clusters === 1 ? '' : 's'}${h.kind === 'routed_vs_measured_strong' ? ", conditional on this run's learned state" : ''}`;
  const d = h.solved_rate_diff_pts;
  if (h.kind === 'actual_vs_repriced_baseline' || d === null || d.estimate === null) return repricedVerdict(h, options);
  const saving = s.estimate === null ? 'no savings figure (the reference cost is zero)' : savingsClaim(figure(s));
  const quality = solvedRateClaim(figure(d), { marginPts: h.margin_pts ?? DEFAULT_MARGIN_PTS, units: h.units, unitsNeeded: options.unitsNeeded ?? powerUnitsNeeded(h.clusters) });
  const degenerate = degenerateRoutingNote({ ...h, ...(options.cheapModel ? { cheap_model: options.cheapModel } : {}) });
  const random = h.vs_random ? vsRandomSentence(h.vs_random) : null;
  return [`${arm} vs ${ref}, ${scope}: ${saving}; ${solvedRateClause(quality)}.`, degenerate, random].filter(Boolean).join(' ');
}

/**
 * The single protocol's headline: what was measured first (solved rate, spend), then the re-priced figure
 * named for what it is, a price effect (the same tokens at the baseline's prices), never a saving: nothing
 * was routed and no strong arm ran. It names the command that does measure routing.
 */
export function repricedVerdict(h: Omit<Headline, 'verdict'>, options: HeadlineWordingOptions = {}): string {
  const model = short(h.routed_model);
  const scope = `on ${h.units} (workload, rep) unit${h.units === 1 ? '' : 's'} over ${h.clusters} workload${h.clusters === 1 ? '' : 's'}`;
  const routed = h.solved_rate.routed.estimate;
  const solved = routed === null ? 'no solved rate' : `solved ${fixed(100 * routed, 0)}% ${intervalText(figure(h.solved_rate.routed), (x) => fixed(100 * x, 0))}`;
  const spent = options.spentUsd === undefined ? '' : `, spent $${usd(options.spentUsd)}`;
  const s = h.savings_pct;
  const effect =
    s.estimate === null
      ? 'No price effect figure (the re-priced cost is zero)'
      : `Price effect ${plainPct(s.estimate)}% ${intervalText(figure(s), plainPct)}: the same tokens re-priced at ${short(h.strong_model)}'s prices`;
  return `${model}, ${scope}: ${solved}${spent}. ${effect}; not a saving: nothing was routed and no strong arm was measured, so it says nothing about quality at ${short(h.strong_model)}. To measure routing: \`bench run --protocol a3\`.`;
}

/**
 * The report's headline: the routed Pass C against the measured strong Pass B on the
 * same (workload, rep) units for A3; for the single protocol, the run against its re-priced baseline.
 * Null when neither applies (a signal run, or an arm without reps).
 */
export function buildHeadline(report: Pick<BenchReport, 'provenance' | 'workloads' | 'protocol_metrics'>, options: HeadlineWordingOptions = {}): Headline | null {
  const p = report.provenance;
  const wording = { ...options, cheapModel: options.cheapModel ?? report.protocol_metrics?.cheap_model ?? p.actual_model };
  if (p.protocol === 'a3') {
    const c = routedAgainstStrong(report, 'C', wording);
    return c ? { ...c, pass_d: routedAgainstStrong(report, 'D', wording) } : null;
  }
  return p.protocol === 'single' ? againstRepriced(report, wording) : null;
}

/**
 * The routed pass's solved rate minus the random router's at its strong-call share, paired per (workload, rep):
 * against the A/B interpolation always, and against Pass R (a router run at random) when it ran.
 */
function vsRandom(report: Pick<BenchReport, 'workloads' | 'protocol_metrics'>, routedPass: string, share: number | null): VsRandom | null {
  if (share === null) return null;
  const solved = (pass: string) => unitsOf(report.workloads, pass, () => '0');
  const [a, b, c, r] = [solved('A'), solved('B'), solved(routedPass), solved('R')];
  const keys = [...c.keys()].filter((k) => a.has(k) && b.has(k)).sort();
  if (keys.length === 0) return null;
  const diff = (units: PairedUnit[]) => est(pairedDifference(units, 'ratio', HEADLINE_CONFIDENCE, 100, [-100, 100]));
  const interpolated = diff(
    keys.map((k) => ({ cluster: c.get(k)!.workload, a: { num: (1 - share) * a.get(k)!.facts.solved + share * b.get(k)!.facts.solved, den: 1 }, b: { num: c.get(k)!.facts.solved, den: 1 } })),
  );
  const rKeys = keys.filter((k) => r.has(k));
  const measured = rKeys.length === 0 ? null : diff(rKeys.map((k) => ({ cluster: c.get(k)!.workload, a: { num: r.get(k)!.facts.solved, den: 1 }, b: { num: c.get(k)!.facts.solved, den: 1 } })));
  const rShare = report.protocol_metrics?.pass_r?.strong_share_measured ?? null;
  return { strong_share: share, interpolated, measured, ...(measured ? { measured_strong_share: rShare } : {}), used: measured ? 'measured' : 'interpolated' };
}

/** The headline's paired units of a routed pass against Pass B (a = B, b = routed): solved (0/1) and cost; null when they share none. */
export function routedPairs(report: Pick<BenchReport, 'workloads'>, routedPass: string): { solvedUnits: PairedUnit[]; costUnits: PairedUnit[]; unmatched: number } | null {
  const strong = unitsOf(report.workloads, 'B', (r) => r.savings.actual_repriced_usd);
  const routed = unitsOf(report.workloads, routedPass, (r) => r.savings.actual_repriced_usd);
  const keys = [...routed.keys()].filter((k) => strong.has(k)).sort();
  if (keys.length === 0) return null;
  // Pass D runs the delegation workloads only: B's other workloads are not its partners, and not "unmatched".
  const workloads = new Set(keys.map((k) => routed.get(k)!.workload));
  const unmatched = [...strong.values()].filter((u) => workloads.has(u.workload)).length + routed.size - 2 * keys.length;
  const pair = (f: (u: UnitFacts) => number): PairedUnit[] =>
    keys.map((k) => ({ cluster: strong.get(k)!.workload, a: { num: f(strong.get(k)!.facts), den: 1 }, b: { num: f(routed.get(k)!.facts), den: 1 } }));
  return { solvedUnits: pair((u) => u.solved), costUnits: pair((u) => u.cost), unmatched };
}

/** A routed pass against Pass B on the (workload, rep) units both ran; null when they share none. */
function routedAgainstStrong(report: Pick<BenchReport, 'provenance' | 'workloads' | 'protocol_metrics'>, routedPass: string, wording: HeadlineWordingOptions): Headline | null {
  const p = report.provenance;
  const conf = HEADLINE_CONFIDENCE;
  const pairs = routedPairs(report, routedPass);
  if (!pairs) return null;
  const { solvedUnits, costUnits, unmatched } = pairs;
  const savings = pairedSavingsPct(costUnits, conf);
  // Pass C's share is the report's; Pass D's is not measured on the same turns, so D gets no random comparison.
  const share = routedPass === 'C' ? (report.protocol_metrics?.strong_call_rate ?? null) : null;
  const h: Omit<Headline, 'verdict'> = {
    kind: 'routed_vs_measured_strong',
    routed_pass: routedPass,
    strong_pass: 'B',
    routed_model: 'routed',
    strong_model: report.protocol_metrics?.strong_model ?? p.strong_model ?? p.baseline_model,
    confidence: conf,
    units: solvedUnits.length,
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
    margin_pts: p.margin_pts ?? DEFAULT_MARGIN_PTS,
    strong_call_rate: share,
    vs_random: vsRandom(report, routedPass, share),
    pass_d: null,
  };
  return { ...h, verdict: headlineVerdict(h, wording) };
}

/** The single protocol: the run against its baseline re-priced on the same tokens. */
function againstRepriced(report: Pick<BenchReport, 'provenance' | 'workloads'>, wording: HeadlineWordingOptions): Headline | null {
  const p = report.provenance;
  const conf = HEADLINE_CONFIDENCE;
  const spent = report.workloads.reduce((sum, w) => w.reps.reduce((t, r) => t.plus(r.savings.actual_repriced_usd), sum), new Decimal(0)).toString();
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
    margin_pts: p.margin_pts ?? DEFAULT_MARGIN_PTS,
    strong_call_rate: null,
    vs_random: null,
    pass_d: null,
  };
  return { ...h, verdict: headlineVerdict(h, { ...wording, spentUsd: spent }) };
}
