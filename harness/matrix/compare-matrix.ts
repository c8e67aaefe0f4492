import type { Decimal } from 'decimal.js';
import type { Arm, Estimate, MatrixCompareArtifact, PointCompare, SettingCompare } from '../../schemas/types/matrix-compare.ts';
import { pairedDifference, pairedSavingsPct, type ClusteredEstimate, type PairedUnit } from '../metrics/paired-stats.ts';
import { aboveClaim, savingsClaim, type IntervalFigure } from '../report/verdict-grammar.ts';
import { SETTING_TEXT, type MatrixRunData, type SettingName } from './matrix-report.ts';
import { hullGapValues, matrixBaselines, type MatrixBaselines } from './operating-point.ts';
import { pointOfPicks } from './outcome-table.ts';

/**
 * `bench compare v1 v2` / `--arm` on a matrix (issue 20 item 5): two arms' runs of the matrix protocol on
 * the same tasks, folds and seed, judged task by task. At each setting and cost_weight every figure is a
 * paired difference B − A over the tasks, its interval cluster-robust (CR2) over the matrix's clusters:
 * the solved rate, the cost per task (and B's savings against A), and the hull gap, each arm's linearised
 * per task as the matrix report does. The words come from the verdict grammar, so they never say more
 * than the interval allows; when the arms chose the same model for every task the comparison says it
 * cannot tell them apart instead of printing a table of zeros.
 */

/** Settings judged out of sample: the cross-fits (each fold routed by a store that never saw it) and online. */
export const OUT_OF_SAMPLE: ReadonlySet<SettingName> = new Set(['unseen_tasks', 'new_workspace', 'online']);

const CONFIDENCE = 0.95;

const est = (e: ClusteredEstimate): Estimate => ({ estimate: e.estimate, ci_low: e.ci_low, ci_high: e.ci_high, clusters: e.clusters });
// Differences print to a tenth of a point: on thousands of tasks a whole-point figure reads "0 pts [−1, 0]: below".
const figure = (e: Estimate): IntervalFigure => ({ estimate: e.estimate ?? 0, low: e.ci_low, high: e.ci_high });

/** Paired units of one per-task value under each arm. */
function units(clusters: readonly string[], a: readonly number[], b: readonly number[]): PairedUnit[] {
  return clusters.map((cluster, t) => ({ cluster, a: { num: a[t]!, den: 1 }, b: { num: b[t]!, den: 1 } }));
}

/** Arm B against arm A at one operating point (both arms' picks on the same tasks). */
export function comparePoint(base: MatrixBaselines, costWeight: number, pa: readonly number[], pb: readonly number[], labels: { a: string; b: string }): PointCompare {
  const { table } = base;
  const { clusters, score, costF } = table;
  const armPoint = (picks: readonly number[]) => {
    const p = pointOfPicks(table, picks);
    const gap = hullGapValues(base, picks, p.cost_per_task_usd.toNumber());
    return { point: p, gap, solved: picks.map((m, t) => score[t]![m]!), cost: picks.map((m, t) => costF[t]![m]!) };
  };
  const A = armPoint(pa);
  const B = armPoint(pb);
  const mean = (xs: readonly number[]) => (xs.length ? xs.reduce((s, x) => s + x, 0) / xs.length : 0);
  const solved = est(pairedDifference(units(clusters, A.solved, B.solved), 'ratio', CONFIDENCE, 100, [-100, 100]));
  const cost = est(pairedDifference(units(clusters, A.cost, B.cost), 'ratio', CONFIDENCE));
  const savings = est(pairedSavingsPct(units(clusters, A.cost, B.cost), CONFIDENCE));
  const gap = est(pairedDifference(units(clusters, A.gap, B.gap), 'ratio', CONFIDENCE, 100));
  const money = (d: Decimal) => d.toDecimalPlaces(12).toFixed();
  return {
    cost_weight: costWeight,
    tasks_routed_differently: pa.reduce((n, m, t) => n + (m === pb[t] ? 0 : 1), 0),
    a: { solved_rate: A.point.solved_rate, cost_per_task_usd: money(A.point.cost_per_task_usd), hull_gap_pts: 100 * mean(A.gap) },
    b: { solved_rate: B.point.solved_rate, cost_per_task_usd: money(B.point.cost_per_task_usd), hull_gap_pts: 100 * mean(B.gap) },
    solved_rate_diff_pts: solved,
    cost_per_task_diff_usd: cost,
    savings_pct: savings,
    hull_gap_diff_pts: gap,
    claims: {
      solved: `${labels.b} solved ${aboveClaim(figure(solved), labels.a, 1)}`,
      cost: savings.estimate === null ? `${labels.a} spent nothing, so no saving is defined` : `${labels.b} ${savingsClaim(figure(savings))} against ${labels.a}`,
      hull_gap: `${labels.b}'s hull gap is ${aboveClaim(figure(gap), `${labels.a}'s`, 1)}`,
    },
  };
}

/** Where routing was judged, in words. */
function whereJudged(settings: readonly SettingCompare[]): string {
  const out = settings.filter((s) => s.out_of_sample).map((s) => SETTING_TEXT[s.setting].phrase);
  const inSample = settings.some((s) => !s.out_of_sample);
  const parts = [out.length ? `out of sample (${out.join('; ')})` : '', inSample ? 'in sample (each task\'s own outcome was in the store that routed it, so routing there shows little of what an arm changes)' : ''].filter(Boolean);
  return parts.join(' and ');
}

/**
 * The comparison of two runs of the same matrix (same tasks, pool, cost weights, folds and seed): every
 * setting both ran, point by point. Throws a RangeError when the runs are not of the same table.
 */
export function compareMatrixRuns(a: MatrixRunData, b: MatrixRunData, arms: readonly [Arm, Arm]): Omit<MatrixCompareArtifact, 'tightness'> {
  const pa = a.provenance;
  const pb = b.provenance;
  if (pa.matrix_path !== pb.matrix_path || a.table.taskIds.join('\n') !== b.table.taskIds.join('\n')) throw new RangeError(`the two runs are of different matrices (${pa.matrix_path} and ${pb.matrix_path})`);
  if (pa.models.join(',') !== pb.models.join(',')) throw new RangeError(`the two runs have different pools (${pa.models.join(',')} and ${pb.models.join(',')})`);
  if (pa.cost_weights.join(',') !== pb.cost_weights.join(',') || pa.folds !== pb.folds || pa.seed !== pb.seed)
    throw new RangeError('the two runs differ in cost weights, folds or seed; a paired comparison needs the same');
  const base = matrixBaselines(a.table);
  const labels = { a: arms[0].label, b: arms[1].label };
  const settings: SettingCompare[] = a.settings.flatMap((sa): SettingCompare[] => {
    const sb = b.settings.find((s) => s.setting === sa.setting);
    if (!sb) return [];
    const points = sa.picks.map((picks, i) => comparePoint(base, pa.cost_weights[i]!, picks, sb.picks[i]!, labels));
    return [{ setting: sa.setting, out_of_sample: OUT_OF_SAMPLE.has(sa.setting), description: SETTING_TEXT[sa.setting].description, identical: points.every((p) => p.tasks_routed_differently === 0), points }];
  });
  const identical = settings.length > 0 && settings.every((s) => s.identical);
  const n = a.table.taskIds.length.toLocaleString('en-US');
  const g = new Set(a.table.clusters).size;
  const where = whereJudged(settings);
  const message =
    settings.length === 0
      ? `${labels.a} and ${labels.b} share no setting, so there is nothing to compare.`
      : identical
        ? `The comparison cannot distinguish ${labels.a} and ${labels.b} here: judged ${where}, on all ${n} tasks both arms chose the same model for every task at every cost_weight, so what differs between them changed no routing decision on this matrix. Every difference below is 0 by construction, not evidence that the arms are equal in general.`
        : `Routing judged ${where}, on ${n} tasks in ${g} clusters: ${labels.b} − ${labels.a} paired task by task, 95% intervals cluster-robust (CR2) over the clusters.`;
  return {
    kind: 'matrix-compare',
    compare_version: 1,
    matrix: pa.matrix,
    tasks: a.table.taskIds.length,
    clusters: g,
    folds: pa.folds,
    seed: pa.seed,
    arms: [...arms],
    identical,
    message,
    settings,
  };
}

/** The comparison as text: the message, then per setting one line per cost_weight with the three claims. */
export function renderMatrixCompare(c: MatrixCompareArtifact, jsonPath: string | null): string {
  const [a, b] = c.arms as [Arm, Arm];
  const lines = [`Matrix ${c.matrix}: ${b.label} against ${a.label} (${c.tasks} tasks, ${c.clusters} clusters, ${c.folds} folds, seed ${c.seed})`, c.message, ''];
  const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
  if (!c.identical)
    for (const s of c.settings) {
      lines.push(`${s.setting} — ${s.out_of_sample ? 'out of sample' : 'in sample'}: ${s.description}`);
      if (s.identical) {
        lines.push(`  both arms chose the same model for every task at every cost_weight: nothing differs in this setting`);
        continue;
      }
      for (const p of s.points) {
        lines.push(`  cost_weight ${p.cost_weight}: ${a.label} ${pct(p.a.solved_rate)} at $${p.a.cost_per_task_usd}, ${b.label} ${pct(p.b.solved_rate)} at $${p.b.cost_per_task_usd}; ${p.tasks_routed_differently} task(s) routed differently`);
        lines.push(`    ${p.claims.solved}; ${p.claims.cost}; ${p.claims.hull_gap}`);
      }
    }
  const t = c.tightness;
  if (t) {
    const f = (x: number | null) => (x === null ? 'n/a' : x.toFixed(3));
    lines.push(
      '',
      `Cluster tightness on the matrix's own clusters (${t.tasks_sampled} tasks, up to ${t.per_cluster} per cluster; v2 = ${t.embedding_provider}, α ${t.alpha}; workload partition off):`,
      `  v1 intra ${f(t.v1.intra)}, inter ${f(t.v1.inter)}, separation ${f(t.v1.separation)}`,
      `  v2 intra ${f(t.v2.intra)}, inter ${f(t.v2.inter)}, separation ${f(t.v2.separation)}`,
      `  tightness test: ${t.verdict.toUpperCase()} — ${t.reason}`,
    );
  }
  if (jsonPath) lines.push('', `JSON: ${jsonPath}`);
  return lines.join('\n');
}
