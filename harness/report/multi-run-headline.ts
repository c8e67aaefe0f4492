import type { BenchReport } from '../../schemas/types/report.ts';
import type { Combined, MultiRun } from '../../schemas/types/multi-run.ts';
import { combineRuns, pairedDifferenceParts, pairedSavingsParts, type RunParts, type TwoLevelEstimate } from '../metrics/index.ts';
import { fitLines } from './fit-lines.ts';
import { HEADLINE_CONFIDENCE, routedPairs } from './headline.ts';
import { DEFAULT_MARGIN_PTS, intervalText, plainPct, savingsClaim, signedPts, solvedRateClaim, solvedRateClause, type IntervalFigure } from './verdict-grammar.ts';

/**
 * The A3 headline over several runs of one suite (`bench run --runs N`): Pass C against Pass B, each run
 * paired on its own (workload, rep) units, the runs combined with the two-level interval
 * (harness/metrics/two-level.ts) so the learning trajectory's variance is in it.
 */

const METHOD =
  'Mean over runs of each run’s paired figure (Pass C against Pass B on its own (workload, rep) units). Variance: two-level (workload × run): the workload-clustered CR2 variance of the run-averaged figure plus the between-run component (the runs’ spread beyond what cell noise explains, never below 0); t on Welch–Satterthwaite degrees of freedom (docs/results.md, “Across runs”).';

/** One finished run of a multi-run command: its seed and report. */
export interface SeededReport {
  seed: number;
  report: BenchReport;
}

const combined = (e: TwoLevelEstimate): Combined => ({
  estimate: e.estimate,
  ci_low: e.ci_low,
  ci_high: e.ci_high,
  se: e.se,
  df: e.df ?? null,
  within_se: e.within_se,
  between_se: e.between_se,
  runs: e.runs,
  per_run: e.per_run,
});

const figure = (e: { estimate: number | null; ci_low: number | null; ci_high: number | null }): IntervalFigure => ({
  estimate: e.estimate ?? 0,
  low: e.ci_low,
  high: e.ci_high,
});

/** The combined headline of A3 runs; null unless every run is A3 with paired C/B units. */
export function buildMultiRunHeadline(runs: readonly SeededReport[], routedPass = 'C'): MultiRun['headline'] {
  if (runs.length === 0 || runs.some((r) => r.report.provenance.protocol !== 'a3')) return null;
  const savings: RunParts[] = [];
  const solved: RunParts[] = [];
  let units = 0;
  const workloads = new Set<string>();
  for (const r of runs) {
    const pairs = routedPairs(r.report, routedPass);
    const s = pairs && pairedSavingsParts(pairs.costUnits);
    const d = pairs && pairedDifferenceParts(pairs.solvedUnits, 'ratio', 100);
    if (!pairs || !s || !d) return null;
    const run = `seed ${r.seed}`;
    savings.push({ run, parts: s });
    solved.push({ run, parts: d });
    units += pairs.solvedUnits.length;
    for (const u of pairs.solvedUnits) workloads.add(u.cluster);
  }
  const conf = HEADLINE_CONFIDENCE;
  const sav = combineRuns(savings, conf, [-Infinity, 100]);
  const diff = combineRuns(solved, conf, [-100, 100]);
  const first = runs[0]!;
  const one = {
    savings: combineRuns([savings[0]!], conf, [-Infinity, 100]),
    diff: combineRuns([solved[0]!], conf, [-100, 100]),
  };
  const margin = first.report.provenance.margin_pts ?? DEFAULT_MARGIN_PTS;
  const seeds = runs.map((r) => r.seed).join(', ');
  const verdict = `routing (Pass ${routedPass}) vs always-strong (Pass B, measured), over ${runs.length} independent runs (seeds ${seeds}; ${units} paired (workload, rep) units over ${workloads.size} workloads), interval across learning trajectories: ${savingsClaim(figure(sav))}; ${solvedRateClause(solvedRateClaim(figure(diff), { marginPts: margin, units }))}.`;
  return {
    routed_pass: routedPass,
    strong_pass: 'B',
    confidence: conf,
    units,
    clusters: workloads.size,
    margin_pts: margin,
    savings_pct: combined(sav),
    solved_rate_diff_pts: combined(diff),
    single_run: {
      seed: first.seed,
      savings_pct: {
        estimate: one.savings.estimate,
        ci_low: one.savings.ci_low,
        ci_high: one.savings.ci_high,
      },
      solved_rate_diff_pts: {
        estimate: one.diff.estimate,
        ci_low: one.diff.ci_low,
        ci_high: one.diff.ci_high,
      },
    },
    method: METHOD,
    verdict,
  };
}

/**
 * What `bench run --runs N` prints after the first run's report: the runs, the combined headline and where
 * the summary went, every line wrapped to `width` (null: unwrapped) like the rest of stdout.
 */
export function renderMultiRunBlock(m: MultiRun, summaryPath: string, width: number | null): string {
  return fitLines([...renderMultiRunHeadline(m), `Summary (every run, the combined headline): ${summaryPath}`].join('\n'), width);
}

/** The stdout block: the verdict, then each figure's combined interval beside the first run's own. */
export function renderMultiRunHeadline(m: MultiRun): string[] {
  const h = m.headline;
  const lines = [`Across ${m.runs.length} runs (seeds ${m.runs.map((r) => r.seed).join(', ')}), each with its own trace DB and pattern store:`];
  for (const r of m.runs) lines.push(`  seed ${r.seed}: ${r.json_path}${r.exit_code === 0 ? '' : ` (exit ${r.exit_code})`}`);
  if (!h) return [...lines, '  no combined headline (not an A3 run, or a run without paired Pass B/C units)'];
  const row = (
    label: string,
    c: Combined,
    one: {
      estimate: number | null;
      ci_low: number | null;
      ci_high: number | null;
    },
    fmt: (x: number) => string,
    unit: string,
  ) => {
    const between = c.between_se === null ? '' : `; between-run SE ${c.between_se.toFixed(2)}, within ${c.within_se === null ? '–' : c.within_se.toFixed(2)}`;
    const perRun = c.per_run.map((p) => fmt(p.estimate)).join(', ');
    return [
      `  ${label}: combined ${fmt(c.estimate ?? 0)}${unit} ${intervalText(figure(c), fmt)} (df ${c.df === null ? '–' : c.df.toFixed(1)}${between})`,
      `  ${' '.repeat(label.length)}  seed ${h.single_run.seed} alone ${fmt(one.estimate ?? 0)}${unit} ${intervalText(figure(one), fmt)} (conditional on that run's learned state); per run: ${perRun}`,
    ];
  };
  return [
    ...lines,
    `Headline across runs: ${h.verdict}`,
    ...row('savings vs measured strong', h.savings_pct, h.single_run.savings_pct, plainPct, '%'),
    ...row('solved rate C − B', h.solved_rate_diff_pts, h.single_run.solved_rate_diff_pts, signedPts, ' pts'),
  ];
}
