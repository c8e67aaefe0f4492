import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { Decimal } from 'decimal.js';
import { formatAjvErrors, validatorFor } from '../../runtime/core/schemas.ts';
import type { CompareArtifact, CompareRow, Interval } from '../../schemas/types/compare.ts';
import type { MultiRun } from '../../schemas/types/multi-run.ts';
import { SetupError } from '../errors.ts';
import { combineRuns, pairedDifferenceParts, pairedSavingsParts, type FigureParts, type PairedUnit, type RunParts, type TwoLevelEstimate } from '../metrics/index.ts';
import { loadReport } from '../report/find-report.ts';
import { DEFAULT_MARGIN_PTS } from '../report/verdict-grammar.ts';
import {
  arm,
  buildClaims,
  sharedUnits,
  ciOf,
  claimScopes,
  COMPARE_METHOD,
  costPairs,
  DEFAULT_CONFIDENCE,
  NO_SHARED_UNITS,
  rowOf,
  rowSpecs,
  solvedRowFor,
  UNDEFINED_FIGURE,
  type CompareInput,
  type CompareOptions,
  type PairedFigure,
  type RowSpec,
} from './compare-reports.ts';
import { routingJudgement, type RoutingJudgement } from './routing-identity.ts';
import { tightnessVerdict } from '../metrics/tightness-verdict.ts';

/**
 * `bench compare a.runs.json b.runs.json` (issue 23 item 4): two multi-run summaries (`bench run --runs N`)
 * compared run by run. Runs pair by seed; each metric's paired difference B − A is taken within each seed's
 * pair of reports (on the (pass, workload, rep) units both hold), and the per-seed differences are combined
 * with the headline's two-level estimator (harness/metrics/two-level.ts), so the interval holds the
 * between-run variance of the learning trajectories as well as the within-run variance clustered by workload.
 */

/** One side: its summary, where it came from, its column label and each run's report by seed. */
export interface RunsInput {
  summary: MultiRun;
  path: string;
  label: string;
  reports: ReadonlyMap<number, CompareInput>;
}

/** How the intervals of a runs comparison are made, as the artifact states it. */
export const COMPARE_RUNS_METHOD =
  'runs paired by seed; per seed, B − A on the (pass, workload, rep) units both reports hold (as for two reports); the figure is the mean over the pairs, its interval two-level: the workload-clustered CR2 variance of the run-averaged difference plus the between-run component (the pairs’ spread beyond what cell noise explains, never below 0), t on Welch–Satterthwaite degrees of freedom (harness/metrics/two-level.ts, as the multi-run headline)';

/** True when parsed JSON is a multi-run summary rather than a report. */
export function isRunsSummary(data: unknown): boolean {
  return typeof data === 'object' && data !== null && 'multi_run_version' in data;
}

/** True when the file at `path` holds a multi-run summary (a report, or anything unreadable, is not). */
export function isRunsSummaryFile(path: string): boolean {
  try {
    return isRunsSummary(JSON.parse(readFileSync(path, 'utf8')));
  } catch {
    return false;
  }
}

/** Reads a runs.json and each run's report JSON (a relative path resolves against the summary's folder); errors name the file and the fix. */
export function loadRunsSummary(path: string, label: string): RunsInput {
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new SetupError(`${path}: cannot read the multi-run summary (${(e as Error).message})`);
  }
  const validate = validatorFor<MultiRun>('multi-run.schema.json');
  if (!validate(data)) throw new SetupError(`${path}: not a valid multi-run summary (schemas/multi-run.schema.json): ${formatAjvErrors(validate.errors)[0] ?? 'does not match'}`);
  const reports = new Map<number, CompareInput>();
  data.runs.forEach((r, i) => {
    const reportPath = resolve(dirname(path), r.json_path);
    let found;
    try {
      found = loadReport(reportPath);
    } catch (e) {
      throw new SetupError(`${path}: runs[${i}] (seed ${r.seed}): ${(e as Error).message}; the summary lists each run's report JSON (rerun bench run --runs, or fix json_path)`);
    }
    reports.set(r.seed, { report: found.report, path: found.path, label: `${label} seed ${r.seed}` });
  });
  return { summary: data, path, label, reports };
}

/** The seeds both sides ran, in A's order; refuses (exit 2) when the seed sets differ, naming the unmatched seeds. */
export function pairSeeds(a: Pick<RunsInput, 'summary' | 'path'>, b: Pick<RunsInput, 'summary' | 'path'>): number[] {
  const sa = a.summary.runs.map((r) => r.seed);
  const sb = b.summary.runs.map((r) => r.seed);
  const onlyA = sa.filter((s) => !sb.includes(s));
  const onlyB = sb.filter((s) => !sa.includes(s));
  if (onlyA.length || onlyB.length) {
    const side = (p: string, xs: number[]) => (xs.length ? `seed(s) ${xs.join(', ')} only in ${p}` : null);
    throw new SetupError(
      `compare: runs pair by seed, and the seed sets differ: ${[side(a.path, onlyA), side(b.path, onlyB)].filter(Boolean).join('; ')}. Rerun one side with the other's seeds (bench run --seeds ${sa.filter((s) => sb.includes(s)).concat(onlyA, onlyB).join(',')}), or compare summaries made with the same --seeds.`,
    );
  }
  return sa;
}

/** The mean over runs of one side's figure, as Decimal text; null when any run lacks it. */
function meanOf(values: readonly (string | number | null)[]): string | null {
  if (values.some((v) => v === null)) return null;
  return values
    .reduce<Decimal>((s, v) => s.plus(new Decimal(v!)), new Decimal(0))
    .div(values.length)
    .toString();
}

const twoLevel = (e: TwoLevelEstimate): NonNullable<Interval['two_level']> => ({ runs: e.runs, df: e.df ?? null, within_se: e.within_se, between_se: e.between_se });

/** One metric's row over the seeds: A's and B's means, and the two-level interval of the per-seed paired differences. */
function combinedRow(seeds: readonly number[], specs: readonly (RowSpec | undefined)[], confidence: number): CompareRow {
  const present = specs.find((s): s is RowSpec => s !== undefined)!;
  const base: RowSpec = { ...present, a: meanOf(specs.map((s) => s?.a ?? null)), b: meanOf(specs.map((s) => s?.b ?? null)) };
  const parts: RunParts[] = [];
  const units: PairedUnit[] = [];
  let unmatched = 0;
  let range: PairedFigure['range'];
  for (let i = 0; i < seeds.length; i++) {
    const s = specs[i];
    const why = (reason: string) => rowOf(base, `seed ${seeds[i]}: ${reason}`);
    if (!s) return why('not in both reports of this seed');
    if (typeof s.paired === 'string') return why(s.paired);
    if (s.paired.units.length === 0) return why(NO_SHARED_UNITS);
    const p: FigureParts | null = pairedDifferenceParts(s.paired.units, s.paired.kind, s.paired.scale);
    if (!p) return why(UNDEFINED_FIGURE);
    parts.push({ run: `seed ${seeds[i]}`, parts: p });
    units.push(...s.paired.units);
    unmatched += s.paired.unmatched;
    range = s.paired.range;
  }
  const e = combineRuns(parts, confidence, range);
  return rowOf(base, ciOf(e, units, unmatched, confidence, { two_level: twoLevel(e) }));
}

/** Routing over the seeds: judged on the same pass in each, identical only when every seed's arms routed alike. */
function combinedRouting(seeds: readonly number[], judgements: readonly (RoutingJudgement | null)[]): RoutingJudgement | null {
  if (judgements.some((j) => j === null)) return null;
  const js = judgements as RoutingJudgement[];
  const first = js[0]!;
  if (js.some((j) => j.pass !== first.pass)) return null;
  const units = js.reduce((s, j) => s + j.units, 0);
  const identical = js.every((j) => j.identical);
  const message = identical
    ? `In each of the ${seeds.length} runs paired by seed (${seeds.join(', ')}): ${first.message}`
    : `Routing judged ${first.sample === 'out_of_sample' ? 'out of sample' : 'in sample'} (pass ${first.pass}), on ${units} (workload, rep) units over ${seeds.length} runs paired by seed (${seeds.join(', ')}).`;
  return { pass: first.pass, sample: first.sample, units, identical, message };
}

/**
 * Two multi-run summaries side by side: runs paired by seed, every row's figure the mean over the pairs and
 * its interval the two-level one; the savings and solved-rate claims in the verdict grammar on the same intervals.
 */
export function compareRuns(a: RunsInput, b: RunsInput, options: CompareOptions = {}): CompareArtifact {
  const confidence = options.confidence ?? DEFAULT_CONFIDENCE;
  const seeds = pairSeeds(a, b);
  const pairs = seeds.map((s) => ({ a: a.reports.get(s)!, b: b.reports.get(s)! }));
  const key = (s: RowSpec) => `${s.metric}\u0000${s.scope}`;
  const perSeed = pairs.map((p) => new Map(rowSpecs(p.a.report, p.b.report).map((s) => [key(s), s])));
  // Every row any pair has, in the order the first pair lists them (then any others).
  const keys = [...new Set(perSeed.flatMap((m) => [...m.keys()]))];
  const rows = keys.map((k) => combinedRow(seeds, perSeed.map((m) => m.get(k)), confidence));
  const routing = combinedRouting(
    seeds,
    pairs.map((p) => routingJudgement(p.a.report, p.b.report)),
  );
  const savings = claimScopes(routing?.pass ?? null).map(({ scope, pass }) => {
    const parts: RunParts[] = [];
    for (let i = 0; i < pairs.length; i++) {
      const units = costPairs(pairs[i]!.a.report, pairs[i]!.b.report, pass);
      const p = units.length ? pairedSavingsParts(units) : null;
      if (!p) return { scope, estimate: { estimate: null, se: null, ci_low: null, ci_high: null, units: 0, clusters: 0 } };
      parts.push({ run: `seed ${seeds[i]}`, parts: p });
    }
    return { scope, estimate: combineRuns(parts, confidence, [-Infinity, 100]) };
  });
  const first = pairs[0]!;
  const verdicts = pairs.map((p) => tightnessVerdict(p.a.report, p.b.report));
  const v0 = verdicts[0]!;
  const disagree = verdicts.some((v) => v.verdict !== v0.verdict);
  const tightness = {
    ...v0,
    reason: `seed ${seeds[0]} of ${seeds.length}: ${v0.reason}${disagree ? `; the runs disagree (${verdicts.map((v, i) => `seed ${seeds[i]} ${v.verdict.toUpperCase()}`).join(', ')})` : ''}`,
  };
  return {
    compare_version: 2,
    banner: first.a.report.banner ?? first.b.report.banner,
    a: { ...arm(first.a), label: a.label, report_path: a.path },
    b: { ...arm(first.b), label: b.label, report_path: b.path },
    statistics: { method: `${COMPARE_METHOD}; ${COMPARE_RUNS_METHOD}`, confidence, cluster: 'workload' },
    rows,
    shared_units: pairs
      .map((p) => sharedUnits(p.a.report, p.b.report))
      .reduce((s, u) => ({ shared: s.shared + u.shared, only_a: s.only_a + u.only_a, only_b: s.only_b + u.only_b }), { shared: 0, only_a: 0, only_b: 0 }),
    tightness_verdict: tightness,
    routing,
    runs: { paired: seeds.length, seeds, a_summary: a.path, b_summary: b.path, method: COMPARE_RUNS_METHOD },
    claims: buildClaims(savings, solvedRowFor(rows, routing?.pass ?? null), options.marginPts ?? DEFAULT_MARGIN_PTS, routing?.identical ?? false),
  };
}
