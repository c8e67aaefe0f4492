import type { Decimal } from 'decimal.js';
import { clusteredFigure, type ClusteredEstimate } from '../metrics/paired-stats.ts';
import type { Baseline, Chosen, Estimate, MatrixReport, OperatingPoint, Setting } from '../../schemas/types/matrix-report.ts';
import { apgrCallShare, cptCallShare, hullArea } from './call-share.ts';
import type { FoldSetting } from './matrix-folds.ts';
import type { SweepPicks } from './matrix-protocol.ts';
import { nestedChoice, prefixChoice, ONLINE_WINDOW, type ChosenPicks } from './nested-choice.ts';
import { cumulativeRegret } from './online-regret.ts';
import { apgr, hullGapValues, matrixBaselines, operatingFigures, type MatrixBaselines, type OperatingFigures } from './operating-point.ts';
import type { OutcomeTable } from './outcome-table.ts';
import { costOnlyPicks, crossFitBaseline, lookupPicks } from './router-baselines.ts';
import { bestFixedChoice, DEFAULT_TARGET, parseTarget, singlePoints, subTable, type RoutingTarget } from './routing-target.ts';
import { simultaneousBand } from './simultaneous-band.ts';
import { moneyText } from '../report/number-text.ts';
import { NO_VARIATION_NO_CLAIM, zeroWidth } from '../report/verdict-grammar.ts';

/** The protocol settings a matrix run reports. */
export type SettingName = Setting['setting'];

/** One setting's raw result: the router's picks per cost_weight and what its stores held. */
export interface SettingRun {
  setting: SettingName;
  picks: SweepPicks;
  store: Setting['store'];
  /** Cross-fit: the outer fold of each task. */
  folds?: number[];
  /** Cross-fit: per outer fold, the inner validation of its training tasks at every cost_weight (−1 off its training set). */
  nested?: SweepPicks[];
  /** Online: the arrival order. */
  order?: number[];
}

/** Everything a matrix report is computed from (all of it stored in the run's DB). */
export interface MatrixRunData {
  provenance: MatrixReport['provenance'];
  table: OutcomeTable;
  settings: readonly SettingRun[];
  /** Each task's prompt length in characters (the cost-only rule's input); absent in DBs from before it was kept. */
  chars?: readonly number[];
}

/** What each setting means, as the reports say it. */
export const SETTING_TEXT: Record<SettingName, { phrase: string; description: string }> = {
  in_sample: { phrase: 'in sample', description: 'one store seeded with every task\'s outcome on every model routes every task (its own outcome included)' },
  unseen_tasks: { phrase: 'out of sample by task (unseen tasks, known clusters)', description: 'cross-fit: folds stratified by cluster; each fold routed by a fresh store seeded with every model\'s outcome on the other folds, the cluster as workspace' },
  new_workspace: { phrase: 'out of sample by cluster (new workspaces)', description: 'cross-fit leaving whole clusters out; no workspace identity (workload_id null)' },
  online: { phrase: 'online', description: `tasks in a seeded order; the store starts empty and learns only the outcome of the model the router chose; the chosen point is picked on the first ${100 * ONLINE_WINDOW}% of the order and judged on the rest` },
};

/** The order in which settings are preferred for the headline: out of sample first. */
const PRIMARY: readonly SettingName[] = ['unseen_tasks', 'new_workspace', 'online', 'in_sample'];

const est = (e: ClusteredEstimate): Estimate => ({ estimate: e.estimate, ci_low: e.ci_low, ci_high: e.ci_high, clusters: e.clusters });
const money = (d: Decimal): string => d.toDecimalPlaces(12).toFixed();

/** The cheapest single model whose solved rate is within 1 pt of the best single model's. */
export function bestSingle(b: MatrixBaselines): number {
  const best = Math.max(...b.singles.map((p) => p.solved_rate));
  return b.singles
    .map((p, m) => ({ p, m }))
    .filter(({ p }) => p.solved_rate >= best - 0.01 - 1e-12)
    .sort((x, y) => x.p.cost_per_task_usd.cmp(y.p.cost_per_task_usd) || y.p.solved_rate - x.p.solved_rate || x.m - y.m)[0]!.m;
}

function mixOf(models: readonly string[], shares: readonly number[]): Record<string, number> {
  return Object.fromEntries(models.map((m, i) => [m, shares[i] ?? 0]));
}

/** A dollar figure for prose: cents above a cent, else two significant digits. */
export function usdText(d: Decimal | string): string {
  return moneyText(d);
}

/** A rate as a percent with its interval: "71% [68, 74]". */
export function pctText(e: Estimate): string {
  const p = (x: number) => (100 * x).toFixed(0);
  return e.estimate === null ? 'n/a' : `${p(e.estimate)}%${intervalSuffix(e, p)}`;
}

/** " [lo, hi]", " (no variation)" for a zero-width interval (the verdict grammar's words), or nothing without one. */
function intervalSuffix(e: Estimate, fmt: (x: number) => string): string {
  if (e.ci_low === null || e.ci_high === null) return '';
  return zeroWidth(e.ci_low, e.ci_high) ? ' (no variation)' : ` [${fmt(e.ci_low)}, ${fmt(e.ci_high)}]`;
}

/** A signed difference in points with its interval: "+2 pts [−1, +4]". */
export function ptsText(e: Estimate, digits = 1): string {
  const s = (x: number) => {
    const r = x.toFixed(digits);
    return Number(r) === 0 ? (0).toFixed(digits) : x > 0 ? `+${r}` : `\u2212${r.slice(1)}`;
  };
  return e.estimate === null ? 'n/a' : `${s(e.estimate)} pts${intervalSuffix(e, s)}`;
}

/** The point the figures of `picks` make, as the report writes it. */
function pointOf(f: OperatingFigures, models: readonly string[], costWeight: number | null, band: { low: number; high: number } | null): OperatingPoint {
  return {
    cost_weight: costWeight,
    cost_per_task_usd: money(f.cost_per_task_usd),
    cost: est(f.cost),
    solved_rate: est(f.solved_rate),
    hull_gap_pts: est(f.hull_gap_pts),
    vs_random_at_mix_pts: est(f.vs_random_at_mix_pts),
    pgr: est(f.pgr),
    oracle_capture: est(f.oracle_capture),
    mix: mixOf(models, f.mix),
    hull_gap_band: band,
  };
}

/** Router minus baseline per task, in points, with its paired CR2 interval. */
function pairedPts(table: OutcomeTable, router: readonly number[], base: readonly number[]): ClusteredEstimate {
  return clusteredFigure(
    router.map((m, t) => ({ cluster: table.clusters[t]!, value: { num: table.score[t]![m]! - table.score[t]![base[t]!]!, den: 1 } })),
    'ratio',
    0.95,
    100,
    [-100, 100],
  );
}

const mode = <T>(xs: readonly T[]): T | null => {
  const c = new Map<T, number>();
  for (const x of xs) c.set(x, (c.get(x) ?? 0) + 1);
  let best: T | null = null;
  let n = 0;
  for (const [x, k] of c) if (k > n) [best, n] = [x, k];
  return best;
};

/** A setting's chosen picks (null for in sample, or a cross-fit recorded without its inner validation and no declared knob). */
function chosenOf(s: SettingRun, table: OutcomeTable, costWeights: readonly number[], target: RoutingTarget): (ChosenPicks & { judged: number[] }) | null {
  const all = table.score.map((_, t) => t);
  if (s.setting === 'online') return s.order ? prefixChoice(table, costWeights, s.picks, s.order, target) : null;
  if (s.setting === 'in_sample' || !s.folds) return null;
  if (s.nested) return { ...nestedChoice(table, costWeights, s.picks, { folds: s.folds, inner: s.nested }, target), judged: all };
  if (target.kind !== 'cost_weight') return null;
  const i = costWeights.findIndex((w) => Math.abs(w - target.value) < 1e-12);
  return i < 0 ? null : { picks: [...s.picks[i]!], byFold: [], chosenBy: 'declared', judged: all };
}

/** The online router's cumulative regret at the knob its calibration window chose, against the best fixed model in hindsight. */
function onlineRegret(table: OutcomeTable, order: readonly number[], sweep: SweepPicks, c: ChosenPicks, costWeights: readonly number[], target: RoutingTarget): NonNullable<Setting['regret']> | null {
  const choice = c.byFold[0];
  if (choice === undefined) return null;
  const knob = choice.knob;
  const best = bestFixedChoice(singlePoints(table), target);
  return {
    best_fixed_model: table.models[best]!,
    cost_weight: costWeights[knob]!,
    tasks: order.length,
    window: Math.ceil(order.length * ONLINE_WINDOW),
    series: cumulativeRegret(table, order, sweep[knob]!, best),
    fallback_model: choice.fallback === null ? null : table.models[choice.fallback]!,
  };
}

/** The baselines' picks at the chosen point: fitted on each fold's training tasks to the same target. */
function baselinePicks(s: SettingRun, table: OutcomeTable, chars: readonly number[] | undefined, target: RoutingTarget, seed: number): { lookup: number[]; costOnly: number[] | null; fixed: number[]; knobs: { lookup: number | null; costOnly: number | null } } | null {
  const n = table.score.length;
  const taus: number[] = [];
  const shares: number[] = [];
  let folds: number[];
  let how: FoldSetting = 'tasks';
  if (s.setting === 'online' && s.order) {
    const cut = Math.ceil(s.order.length * ONLINE_WINDOW);
    const window = new Set(s.order.slice(0, cut));
    // Fold 0 is judged, fold 1 (the calibration window) trains.
    folds = table.score.map((_, t) => (window.has(t) ? 1 : 0));
  } else if (s.folds) {
    folds = s.folds;
    how = s.setting === 'new_workspace' ? 'clusters' : 'tasks';
  } else return null;
  const judgedOnly = (fit: (train: number[], test: number[], f: number) => number[]) =>
    crossFitBaseline(n, folds, (train, test, f) => (s.setting === 'online' && f === 1 ? test.map(() => 0) : fit(train, test, f)));
  const lookup = judgedOnly((train, test, f) => {
    const r = lookupPicks(table, train, test, target, { k: 3, setting: how, seed: seed + 1000 * (f + 1) });
    taus.push(r.tau);
    return r.picks;
  });
  const costOnly = chars
    ? judgedOnly((train, test) => {
        const r = costOnlyPicks(table, chars, train, test, target);
        shares.push(r.share);
        return r.picks;
      })
    : null;
  const fixed = judgedOnly((train, test) => {
    const m = bestFixedChoice(singlePoints(subTable(table, train)), target);
    return test.map(() => m);
  });
  return { lookup, costOnly, fixed, knobs: { lookup: mode(taus), costOnly: mode(shares) } };
}

/** The report of a matrix run: baselines, every setting's swept and chosen points, the verdict and the headline. */
export function buildMatrixReport(d: MatrixRunData): MatrixReport {
  const b = matrixBaselines(d.table);
  const { models } = d.table;
  const target = d.provenance.target ? parseTarget(d.provenance.target) : DEFAULT_TARGET;
  const costWeights = d.provenance.cost_weights;
  const single = (m: number) => operatingFigures(b, d.table.score.map(() => m));
  const settings: Setting[] = d.settings.map((s): Setting => {
    const costs = s.picks.map((picks) => picks.reduce((sum, m, t) => sum + d.table.costF[t]![m]!, 0) / picks.length);
    const band = simultaneousBand(
      s.picks.map((picks, i) => hullGapValues(b, picks, costs[i]!)),
      d.table.clusters,
      { scale: 100, seed: d.provenance.seed },
    );
    const points = s.picks.map((picks, i): OperatingPoint => pointOf(operatingFigures(b, picks), models, costWeights[i]!, band ? { low: band.low[i]!, high: band.high[i]! } : null));
    const two = models.length === 2;
    const cpts = two ? cptCallShare(b, s.picks, { seed: d.provenance.seed }) : null;
    const base = {
      setting: s.setting,
      description: SETTING_TEXT[s.setting].description,
      points,
      cost_apgr: est(apgr(b, s.picks)),
      apgr_call_share: two ? est(apgrCallShare(b, s.picks)) : null,
      cpt50: cpts?.cpt50 ?? null,
      cpt80: cpts?.cpt80 ?? null,
      hull_area: two ? null : est(hullArea(b, s.picks)),
      band: band ? { critical_value: band.critical, df: band.df } : null,
      store: s.store,
    };
    const c = chosenOf(s, d.table, costWeights, target);
    if (!c) return { ...base, chosen: null, baselines: null };
    const regret = s.setting === 'online' && s.order ? onlineRegret(d.table, s.order, s.picks, c, costWeights, target) : null;
    if (regret) Object.assign(base, { regret });
    const all = c.judged.length === d.table.score.length;
    const jt = all ? d.table : subTable(d.table, c.judged);
    const jb = all ? b : matrixBaselines(jt);
    const sub = (picks: readonly number[]) => (all ? [...picks] : c.judged.map((t) => picks[t]!));
    const router = sub(c.picks);
    const fallbacks = c.byFold.map((f) => f.fallback);
    const everyFallback = c.byFold.length > 0 && fallbacks.every((f) => f !== null);
    const routed = c.byFold.filter((f) => f.fallback === null).map((f) => costWeights[f.knob]!);
    const knob = c.chosenBy === 'declared' ? target.value : mode(routed);
    const chosen: Chosen = {
      target: `${target.kind}=${target.value}`,
      chosen_by: c.chosenBy,
      cost_weight: everyFallback ? null : knob,
      by_fold: c.byFold.map((f) => ({ fold: f.fold, cost_weight: costWeights[f.knob]!, fallback_model: f.fallback === null ? null : models[f.fallback]!, validated_hull_gap_pts: est(f.validated_gap) })),
      fallback_model: everyFallback ? models[mode(fallbacks as number[])!]! : null,
      tasks_judged: c.judged.length,
      point: pointOf(operatingFigures(jb, router), models, everyFallback ? null : knob, null),
    };
    const bp = baselinePicks(s, d.table, d.chars, target, d.provenance.seed);
    const baseline = (picks: number[], knobValue: number | null = null): Baseline => {
      const p = sub(picks);
      const f = operatingFigures(jb, p);
      return { solved_rate: est(f.solved_rate), cost_per_task_usd: money(f.cost_per_task_usd), hull_gap_pts: est(f.hull_gap_pts), router_minus_baseline_pts: est(pairedPts(jt, router, p)), knob: knobValue };
    };
    const oracle = all ? b.oracle : c.judged.map((t) => b.oracle[t]!);
    const oracleFull = new Array<number>(d.table.score.length).fill(0);
    c.judged.forEach((t, j) => (oracleFull[t] = oracle[j]!));
    return {
      ...base,
      chosen,
      baselines: bp
        ? {
            per_cluster_lookup: baseline(bp.lookup, bp.knobs.lookup),
            cost_only: bp.costOnly ? baseline(bp.costOnly, bp.knobs.costOnly) : null,
            best_fixed: baseline(bp.fixed),
            oracle: baseline(oracleFull),
          }
        : null,
    };
  });
  const primary = PRIMARY.map((name) => settings.find((s) => s.setting === name)).find((s) => s?.chosen) ?? PRIMARY.map((name) => settings.find((s) => s.setting === name)).find((s) => s && s.points.length > 0) ?? null;
  const bs = bestSingle(b);
  const oracleMix = new Array<number>(models.length).fill(0);
  // Counted, then divided once: adding 1/n per task drifts (0.4000000000000001 for 16 of 40).
  for (const m of b.oracle) oracleMix[m]! += 1;
  for (let m = 0; m < oracleMix.length; m++) oracleMix[m] = oracleMix[m]! / b.oracle.length;
  const report: MatrixReport = {
    kind: 'matrix',
    report_version: 2,
    headline: '',
    provenance: d.provenance,
    models: models.map((model, m) => ({ model, cost_per_task_usd: money(b.singles[m]!.cost_per_task_usd), solved_rate: est(single(m).solved_rate), on_hull: b.hull.some((v) => v.model === m) })),
    hull: b.hull.map((v) => ({ model: models[v.model]!, cost_per_task_usd: money(b.singles[v.model]!.cost_per_task_usd), solved_rate: v.rate })),
    oracle: { cost_per_task_usd: money(b.oraclePoint.cost_per_task_usd), solved_rate: est(operatingFigures(b, b.oracle).solved_rate), mix: mixOf(models, oracleMix) },
    best_single: { model: models[bs]!, cost_per_task_usd: money(b.singles[bs]!.cost_per_task_usd), solved_rate: b.singles[bs]!.solved_rate },
    settings,
    verdict: verdictOf(primary),
  };
  report.headline = headline(report, primary);
  return report;
}

// A zero-width interval (no variation) claims nothing, above 0 or not: the verdict grammar's rule.
const above = (e: Estimate | undefined | null) => e?.ci_low !== null && e?.ci_low !== undefined && e.ci_high !== null && e.ci_high !== undefined && e.ci_high > e.ci_low && e.ci_low > 0;

/** What a router-minus-baseline interval that is not above 0 allows the verdict to say. */
function matchWords(e: Estimate): string {
  if (e.ci_low === null || e.ci_high === null) return 'no interval, so no claim either way';
  if (zeroWidth(e.ci_low, e.ci_high)) return `${NO_VARIATION_NO_CLAIM} either way`;
  return e.ci_high < 0 ? 'that baseline beats it' : 'that baseline matches it';
}

/** The verdict of the primary setting at its chosen point alone. */
export function verdictOf(primary: Setting | null): MatrixReport['verdict'] {
  const c = primary?.chosen ?? null;
  if (!primary || !c)
    return { beats_hull: false, setting: primary?.setting ?? 'none', cost_weight: null, chosen_by: null, predicts_prompts: false, matched_by: null, routing_adds_nothing: false, use_model: null, statement: 'No chosen operating point: the router was not judged.' };
  const b = primary.baselines;
  const beats = above(c.point.hull_gap_pts);
  const predicts = above(b?.per_cluster_lookup?.router_minus_baseline_pts);
  const order: [string, Baseline | null | undefined][] = [
    ['per_cluster_lookup', b?.per_cluster_lookup],
    ['cost_only', b?.cost_only],
    ['best_fixed', b?.best_fixed],
  ];
  const matched = predicts ? null : (order.find(([, x]) => x && !above(x.router_minus_baseline_pts))?.[0] ?? null);
  const nothing = c.fallback_model !== null;
  const phrase = SETTING_TEXT[primary.setting].phrase;
  const statement = nothing
    ? `Routing adds nothing here: use ${c.fallback_model} (${phrase}; inner validation showed no gain over the best fixed mix at ${c.target}).`
    : predicts
      ? `The router predicts which prompts need the strong model (${phrase}): it beats the per-cluster lookup at the chosen point by ${ptsText(b!.per_cluster_lookup!.router_minus_baseline_pts)}.`
      : matched
        ? `The router does not beat the ${BASELINE_TEXT[matched]} at the chosen point (${phrase}; router minus it ${ptsText(order.find(([k]) => k === matched)![1]!.router_minus_baseline_pts)}): ${matchWords(order.find(([k]) => k === matched)![1]!.router_minus_baseline_pts)}.`
        : `The router beats every baseline at the chosen point (${phrase}) except that no per-cluster lookup was fitted.`;
  // A baseline that clears the hull where the router does not is worth a routing team's attention.
  const clears = beats ? [] : order.filter(([, x]) => x && above(x.hull_gap_pts));
  const note = clears.map(([k, x]) => ` The ${BASELINE_TEXT[k]} is above the hull here (hull gap ${ptsText(x!.hull_gap_pts)}).`).join('');
  return { beats_hull: beats, setting: primary.setting, cost_weight: c.cost_weight, chosen_by: c.chosen_by, predicts_prompts: predicts, matched_by: matched, routing_adds_nothing: nothing, use_model: c.fallback_model, statement: statement + note };
}

/** How the prose names each baseline. */
export const BASELINE_TEXT: Record<string, string> = {
  per_cluster_lookup: 'per-cluster lookup (each cluster\'s best training gain per dollar)',
  cost_only: 'cost-only rule (the strong model for the shortest prompts)',
  best_fixed: 'best fixed model at the target',
  oracle: 'oracle',
};

/** The sentences every rendering opens with: the chosen point, the cheapest good single model, the verdict. */
function headline(r: MatrixReport, primary: Setting | null): string {
  const n = r.provenance.tasks.toLocaleString('en-US');
  const best = `The cheapest single model within 1 pt of the best is ${r.best_single.model} at ${usdText(r.best_single.cost_per_task_usd)} a task.`;
  const c = primary?.chosen;
  if (!primary || !c) return `On ${n} tasks the router was not judged (no chosen operating point). ${best}`;
  const p = c.point;
  const g = p.hull_gap_pts;
  // "above" and "below" only where the interval can carry them; otherwise the estimate is named as no claim.
  const sure = g.ci_low !== null && g.ci_high !== null && g.ci_high > g.ci_low && (g.ci_low > 0 || g.ci_high < 0);
  const against = g.estimate === null
    ? 'not compared with the best fixed mix at that cost'
    : sure
      ? `${Math.abs(g.estimate).toFixed(1)} pts ${g.estimate > 0 ? 'above' : 'below'} the best fixed mix at that cost`
      : `${ptsText({ ...g, ci_low: null, ci_high: null })} against the best fixed mix at that cost, ${g.ci_low !== null && g.ci_high !== null && zeroWidth(g.ci_low, g.ci_high) ? NO_VARIATION_NO_CLAIM : 'not decisive'}`;
  const how = c.chosen_by === 'declared' ? `declared cost_weight ${c.cost_weight}` : c.cost_weight === null ? `target ${c.target}, fixed choice` : `target ${c.target}, cost_weight ${c.cost_weight} chosen ${c.chosen_by === 'nested' ? 'inside the training folds' : 'on the calibration window'}`;
  const lead = `On ${c.tasks_judged === r.provenance.tasks ? n : `${c.tasks_judged.toLocaleString('en-US')} of ${n}`} tasks, ${SETTING_TEXT[primary.setting].phrase}, the router solved ${pctText(p.solved_rate)} at ${usdText(p.cost_per_task_usd)} a task, ${against} (hull gap ${ptsText(g)}; ${how}).`;
  return `${lead} ${r.verdict.statement} ${best}`;
}
