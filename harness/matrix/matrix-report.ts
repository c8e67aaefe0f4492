import type { Decimal } from 'decimal.js';
import type { ClusteredEstimate } from '../metrics/paired-stats.ts';
import type { Estimate, MatrixReport, OperatingPoint, Setting } from '../../schemas/types/matrix-report.ts';
import { apgr, matrixBaselines, operatingFigures, type MatrixBaselines } from './operating-point.ts';
import type { OutcomeTable } from './outcome-table.ts';
import { moneyText } from '../report/number-text.ts';
import { decisive, type IntervalFigure } from '../report/verdict-grammar.ts';
import type { SweepPicks } from './matrix-protocol.ts';

/** The protocol settings a matrix run reports. */
export type SettingName = Setting['setting'];

/** One setting's raw result: the router's picks per cost_weight and what its stores held. */
export interface SettingRun {
  setting: SettingName;
  picks: SweepPicks;
  store: Setting['store'];
}

/** Everything a matrix report is computed from (all of it stored in the run's DB). */
export interface MatrixRunData {
  provenance: MatrixReport['provenance'];
  table: OutcomeTable;
  settings: readonly SettingRun[];
}

/** What each setting means, as the reports say it. */
export const SETTING_TEXT: Record<SettingName, { phrase: string; description: string }> = {
  in_sample: { phrase: 'in sample', description: 'one store seeded with every task\'s outcome on every model routes every task (its own outcome included)' },
  unseen_tasks: { phrase: 'out of sample by task (unseen tasks, known clusters)', description: 'cross-fit: folds stratified by cluster; each fold routed by a fresh store seeded with every model\'s outcome on the other folds, the cluster as workspace' },
  new_workspace: { phrase: 'out of sample by cluster (new workspaces)', description: 'cross-fit leaving whole clusters out; no workspace identity (workload_id null)' },
  online: { phrase: 'online', description: 'tasks in a seeded order; the store starts empty and learns only the outcome of the model the router chose' },
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
  return e.estimate === null ? 'n/a' : `${p(e.estimate)}%${e.ci_low !== null && e.ci_high !== null ? ` [${p(e.ci_low)}, ${p(e.ci_high)}]` : ''}`;
}

/** A signed difference in points with its interval: "+2 pts [−1, +4]". */
export function ptsText(e: Estimate, digits = 1): string {
  const s = (x: number) => {
    const r = x.toFixed(digits);
    return Number(r) === 0 ? (0).toFixed(digits) : x > 0 ? `+${r}` : `\u2212${r.slice(1)}`;
  };
  return e.estimate === null ? 'n/a' : `${s(e.estimate)} pts${e.ci_low !== null && e.ci_high !== null ? ` [${s(e.ci_low)}, ${s(e.ci_high)}]` : ''}`;
}

const figureOf = (e: Estimate): IntervalFigure => ({ estimate: e.estimate ?? 0, low: e.ci_low, high: e.ci_high });

/** The point a setting is judged by: the largest hull gap among those whose interval excludes 0 from above, else the largest gap. */
export function judgedPoint(points: readonly OperatingPoint[]): { index: number; beats: boolean } | null {
  if (points.length === 0) return null;
  const gap = (p: OperatingPoint) => p.hull_gap_pts.estimate ?? -Infinity;
  // A zero-width interval (no variation) claims nothing, above 0 or not: the verdict grammar's rule.
  const above = points.map((p, i) => ({ p, i })).filter(({ p }) => decisive(figureOf(p.hull_gap_pts)) && p.hull_gap_pts.ci_low! > 0);
  const pool = above.length ? above : points.map((p, i) => ({ p, i }));
  const best = pool.reduce((a, b) => (gap(b.p) > gap(a.p) ? b : a));
  return { index: best.i, beats: above.length > 0 };
}

/** The report of a matrix run: baselines, every setting's operating points, the verdict and the headline. */
export function buildMatrixReport(d: MatrixRunData): MatrixReport {
  const b = matrixBaselines(d.table);
  const { models } = d.table;
  const single = (m: number) => operatingFigures(b, d.table.score.map(() => m));
  const settings: Setting[] = d.settings.map((s) => ({
    setting: s.setting,
    description: SETTING_TEXT[s.setting].description,
    points: s.picks.map((picks, i): OperatingPoint => {
      const f = operatingFigures(b, picks);
      return {
        cost_weight: d.provenance.cost_weights[i]!,
        cost_per_task_usd: money(f.cost_per_task_usd),
        cost: est(f.cost),
        solved_rate: est(f.solved_rate),
        hull_gap_pts: est(f.hull_gap_pts),
        vs_random_at_mix_pts: est(f.vs_random_at_mix_pts),
        pgr: est(f.pgr),
        oracle_capture: est(f.oracle_capture),
        mix: mixOf(models, f.mix),
      };
    }),
    apgr: est(apgr(b, s.picks)),
    store: s.store,
  }));
  const primary = PRIMARY.map((name) => settings.find((s) => s.setting === name)).find((s) => s && s.points.length > 0) ?? null;
  const judged = primary ? judgedPoint(primary.points) : null;
  const bs = bestSingle(b);
  const oracleMix = new Array<number>(models.length).fill(0);
  // Counted, then divided once: adding 1/n per task drifts (0.4000000000000001 for 16 of 40).
  for (const m of b.oracle) oracleMix[m]! += 1;
  for (let m = 0; m < oracleMix.length; m++) oracleMix[m] = oracleMix[m]! / b.oracle.length;
  const report: MatrixReport = {
    kind: 'matrix',
    report_version: 1,
    headline: '',
    provenance: d.provenance,
    models: models.map((model, m) => ({ model, cost_per_task_usd: money(b.singles[m]!.cost_per_task_usd), solved_rate: est(single(m).solved_rate), on_hull: b.hull.some((v) => v.model === m) })),
    hull: b.hull.map((v) => ({ model: models[v.model]!, cost_per_task_usd: money(b.singles[v.model]!.cost_per_task_usd), solved_rate: v.rate })),
    oracle: { cost_per_task_usd: money(b.oraclePoint.cost_per_task_usd), solved_rate: est(operatingFigures(b, b.oracle).solved_rate), mix: mixOf(models, oracleMix) },
    best_single: { model: models[bs]!, cost_per_task_usd: money(b.singles[bs]!.cost_per_task_usd), solved_rate: b.singles[bs]!.solved_rate },
    settings,
    verdict: { beats_hull: judged?.beats ?? false, setting: primary?.setting ?? 'none', cost_weight: primary && judged ? primary.points[judged.index]!.cost_weight : null },
  };
  report.headline = headline(report, primary, judged);
  return report;
}

/** The one sentence every rendering opens with (issue 20 item 5). */
function headline(r: MatrixReport, primary: Setting | null, judged: { index: number; beats: boolean } | null): string {
  const n = r.provenance.tasks.toLocaleString('en-US');
  const best = `The cheapest single model within 1 pt of the best is ${r.best_single.model} at ${usdText(r.best_single.cost_per_task_usd)} a task.`;
  if (!primary || !judged) return `On ${n} tasks the router was not run. ${best}`;
  const p = primary.points[judged.index]!;
  const g = p.hull_gap_pts;
  const side = g.estimate === null ? 'against' : g.estimate > 0 ? 'above' : g.estimate < 0 ? 'below' : 'level with';
  const size = g.estimate === null ? 'n/a' : `${Math.abs(g.estimate).toFixed(1)} pts`;
  const lead = `On ${n} tasks, ${SETTING_TEXT[primary.setting].phrase}, the router solved ${pctText(p.solved_rate)} at ${usdText(p.cost_per_task_usd)} a task, ${size} ${side} the best fixed mix at that cost (hull gap ${ptsText(g)}; cost_weight ${p.cost_weight}).`;
  const plain = judged.beats
    ? ''
    : ` The router does not beat the best fixed mix at any cost here (no interval excludes 0 from above): the best fixed choice is ${r.best_single.model} at ${usdText(r.best_single.cost_per_task_usd)} a task.`;
  return `${lead} ${best}${plain}`;
}
