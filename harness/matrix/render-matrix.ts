import * as echarts from 'echarts/core';
import { LineChart, ScatterChart, type LineSeriesOption, type ScatterSeriesOption } from 'echarts/charts';
import { GridComponent, LegendComponent, type GridComponentOption, type LegendComponentOption } from 'echarts/components';
import { SVGRenderer } from 'echarts/renderers';
import type { Baseline, Estimate, MatrixReport, Setting } from '../../schemas/types/matrix-report.ts';
import { pctText, ptsText, SETTING_TEXT, usdText } from './matrix-report.ts';
import type { FitColumn } from '../report/fit-table.ts';
import { fixedText, intervalText } from '../report/number-text.ts';
import { renderSections, topShares, type TextSection } from '../report/text-sections.ts';
import { htmlText } from '../report/render-html.ts';
import { verdictLead } from '../report/verdict-lead.ts';
import { zeroWidth } from '../report/verdict-grammar.ts';
import { regretSummary, renderRegretText, type OnlineRegret } from './regret-chart.ts';

/**
 * The matrix report rendered: stdout text, Markdown and self-contained HTML, each opening with the
 * headline sentence. The main chart plots cost per task against solved rate: single models as labelled
 * points, the hull of fixed mixes as a line, the router's curve per setting, and the oracle.
 */

echarts.use([LineChart, ScatterChart, GridComponent, LegendComponent, SVGRenderer]);
type ChartOption = echarts.ComposeOption<LineSeriesOption | ScatterSeriesOption | GridComponentOption | LegendComponentOption>;

const FONT = 'Arial, Helvetica, Liberation Sans, sans-serif';
const SETTING_COLOR: Record<Setting['setting'], string> = { in_sample: '#8c959f', unseen_tasks: '#cf222e', new_workspace: '#8250df', online: '#bf8700' };

const bandText = (b: { low: number; high: number } | null | undefined) => (b ? intervalText(signedText(b.low, 1), signedText(b.high, 1)) : 'n/a');
const signedText = (x: number, digits: number) => `${x >= 0 ? '+' : '\u2212'}${Math.abs(x).toFixed(digits)}`;

const INTERVALS =
  'Intervals: paired 95%, cluster-robust over the clusters (CR2); CPT intervals from a cluster bootstrap. Hull gap and vs-random are in points of solved rate. A swept point supports a claim only where its simultaneous band excludes 0; every verdict comes from the chosen point.';

/**
 * Below this many clusters a CR2 interval rests on a t with a handful of degrees of freedom: wide by
 * construction (GSM8K's confirm half has 2 clusters and an APGR interval of [−2.70, 3.82]), so the report says so
 * beside the intervals instead of letting a reader take that width for a finding.
 */
const FEW_CLUSTERS = 5;

/** The intervals note, with the few-clusters warning when it applies. */
export function intervalsNote(r: MatrixReport): string {
  const n = r.provenance.clusters;
  if (n >= FEW_CLUSTERS) return INTERVALS;
  return `${INTERVALS} Only ${n} cluster${n === 1 ? '' : 's'}: every interval rests on at most ${Math.max(n - 1, 0)} degree${n - 1 === 1 ? '' : 's'} of freedom and is wide by construction; read this report's figures as point estimates, not findings.`;
}

// A zero-width interval prints as "(no variation)", as the verdict grammar words it, never as [x, x].
const num = (e: Pick<Estimate, 'estimate' | 'ci_low' | 'ci_high'>, digits = 3) =>
  e.estimate === null
    ? 'n/a'
    : `${fixedText(e.estimate, digits)}${e.ci_low !== null && e.ci_high !== null ? (zeroWidth(e.ci_low, e.ci_high) ? ' (no variation)' : ` ${intervalText(fixedText(e.ci_low, digits), fixedText(e.ci_high, digits))}`) : ''}`;
/** A model as people know it: its display name when the importer gave one (the JSON keeps the id). */
const shown = (id: string, names: Readonly<Record<string, string>>) => names[id] ?? id;
/** The non-zero shares of a mix, largest first: every model with `all`, else the top three and "+N more". */
const mixText = (mix: Readonly<Record<string, number | undefined>>, names: Readonly<Record<string, string>> = {}, all = false) => {
  const shares = Object.entries(mix).map(([m, s]) => ({ name: shown(m, names), share: s ?? 0 }));
  return topShares(shares, all ? shares.length : 3);
};

const col = (head: string, drop: number, extra: Partial<FitColumn> = {}): FitColumn => ({ head, drop, ...extra });
const BASELINE_COLUMNS = [col('arm', 0, { wrap: true }), col('$/task', 0, { numeric: true }), col('solved', 0), col('on hull', 2)];
const SETTING_COLUMNS = [
  col('cost_weight', 0, { numeric: true }),
  col('$/task', 0, { numeric: true }),
  col('solved', 0),
  col('vs hull', 0),
  col('vs hull, band', 1),
  col('vs random at mix', 2),
  col('PGR', 3),
  col('oracle capture', 2),
  col('mix', 1, { wrap: true }),
];
const CHOSEN_COLUMNS = [col('arm', 0, { wrap: true }), col('$/task', 0, { numeric: true }), col('solved', 0), col('vs hull', 0), col('router minus arm', 0)];

/** The rows of every table, shared by the text, Markdown and HTML renderings. */
function tables(r: MatrixReport, names: Readonly<Record<string, string>> = {}, allShares = false): { title: string; columns: FitColumn[]; head: string[]; rows: string[][]; notes: string[] }[] {
  const out: { title: string; columns: FitColumn[]; head: string[]; rows: string[][]; notes: string[] }[] = [];
  const oracleArm = 'oracle (cheapest model that solves each task)';
  out.push({
    title: `Baselines on ${r.provenance.tasks} tasks, ${r.provenance.clusters} clusters (${r.provenance.matrix}; source ${r.provenance.source.name}, ${r.provenance.source.licence})`,
    columns: BASELINE_COLUMNS,
    head: BASELINE_COLUMNS.map((c) => c.head),
    rows: [
      ...r.models.map((m) => [shown(m.model, names), usdText(m.cost_per_task_usd), pctText(m.solved_rate), m.on_hull ? 'yes' : 'no']),
      [oracleArm, usdText(r.oracle.cost_per_task_usd), pctText(r.oracle.solved_rate), '-'],
    ],
    // The oracle's mix can name every model of the matrix: a line of its own, not a column padding the table.
    notes: [`  oracle's mix: ${mixText(r.oracle.mix, names, allShares) || 'none'}`],
  });
  for (const s of r.settings) {
    const curve = [
      `cost_apgr ${num(s.cost_apgr)} (area under PGR over normalised cost)`,
      ...(s.apgr_call_share ? [`APGR on strong-call share ${num(s.apgr_call_share)}`] : []),
      ...(s.cpt50 && s.cpt80 ? [`CPT(50%) ${num(s.cpt50, 2)}, CPT(80%) ${num(s.cpt80, 2)}`] : []),
      ...(s.hull_area ? [`area above the hull ${num(s.hull_area)}`] : []),
    ].join('; ');
    const bandNote = s.band ? `; band: simultaneous 95% over the ${s.points.length} points (critical value ${s.band.critical_value.toFixed(2)}), claims only where it excludes 0` : '';
    out.push({
      title: `Router, ${SETTING_TEXT[s.setting].phrase}: ${s.description}. ${curve}; stores held at most ${s.store.outcomes_max} outcomes (${s.store.fingerprints_max} fingerprints) over ${s.store.stores} store(s)${bandNote}`,
      columns: SETTING_COLUMNS,
      head: SETTING_COLUMNS.map((c) => c.head),
      rows: s.points.map((p) => [String(p.cost_weight), usdText(p.cost_per_task_usd), pctText(p.solved_rate), ptsText(p.hull_gap_pts), bandText(p.hull_gap_band), ptsText(p.vs_random_at_mix_pts), num(p.pgr, 2), num(p.oracle_capture, 2), mixText(p.mix, names, allShares)]),
      notes: [],
    });
    const c = s.chosen;
    if (!c) continue;
    const b = s.baselines;
    const row = (name: string, x: Baseline | null | undefined): string[][] => (x ? [[name, usdText(x.cost_per_task_usd), pctText(x.solved_rate), ptsText(x.hull_gap_pts), ptsText(x.router_minus_baseline_pts)]] : []);
    const how = c.fallback_model ? `every fold fell back to ${c.fallback_model}` : `cost_weight ${c.cost_weight} (${c.chosen_by})`;
    out.push({
      title: `Chosen point, ${SETTING_TEXT[s.setting].phrase}: target ${c.target}, ${how}, ${c.tasks_judged} tasks judged; baselines on the same folds and target`,
      columns: CHOSEN_COLUMNS,
      head: CHOSEN_COLUMNS.map((c) => c.head),
      notes: [],
      rows: [
        ['router (chosen point)', usdText(c.point.cost_per_task_usd), pctText(c.point.solved_rate), ptsText(c.point.hull_gap_pts), ''],
        ['random at the router\'s mix', '', '', '', ptsText(c.point.vs_random_at_mix_pts)],
        ...row('per-cluster lookup', b?.per_cluster_lookup),
        ...row('cost-only rule (shortest prompts to the strong model)', b?.cost_only),
        ...row('best fixed model at the target', b?.best_fixed),
        ...row('oracle', b?.oracle),
      ],
    });
  }
  return out;
}

/** Text with every model id replaced by its display name (longest ids first, so no id is cut inside a longer one). */
function withNames(text: string, names: Readonly<Record<string, string>>): string {
  return Object.entries(names)
    .sort((a, b) => b[0].length - a[0].length)
    .reduce((t, [id, name]) => t.replaceAll(id, name), text);
}

/** How the stdout text is laid out: where the DB and JSON went, the width to fit (null: no limit) and models' display names. */
export interface MatrixTextOptions {
  json: string | null;
  db: string | null;
  width?: number | null;
  names?: Readonly<Record<string, string>>;
}

/** Plain text for stdout, every line within `width` (tables fold as the agent report's do). */
export function renderMatrixText(r: MatrixReport, o: MatrixTextOptions = { json: null, db: null }): string {
  const width = o.width ?? null;
  const sections: TextSection[] = [{ lines: [withNames(r.headline, o.names ?? {}), ''] }];
  for (const t of tables(r, o.names, width === null)) sections.push({ title: t.title, columns: t.columns, rows: t.rows, notes: t.notes }, { lines: [''] });
  for (const s of r.settings) if (s.regret) sections.push({ lines: [...renderRegretText(s.regret), ''] });
  const tail = [intervalsNote(r)];
  if (o.db) tail.push(`DB: ${o.db}`);
  if (o.json) tail.push(`JSON: ${o.json}`);
  sections.push({ lines: tail });
  return renderSections(sections, width);
}

/** Markdown (decks, the GitHub step summary). */
export function renderMatrixMarkdown(r: MatrixReport): string {
  const esc = (s: string) => s.replaceAll('|', '\\|');
  const lines = [`**${esc(r.headline)}**`, ''];
  for (const t of tables(r, {}, true)) lines.push(`*${esc(t.title)}*`, '', `| ${t.head.join(' | ')} |`, `| ${t.head.map(() => '---').join(' | ')} |`, ...t.rows.map((row) => `| ${row.map(esc).join(' | ')} |`), '', ...t.notes.map((n) => esc(n.trim())), ...(t.notes.length ? [''] : []));
  for (const s of r.settings) if (s.regret) lines.push(esc(regretSummary(s.regret)), '', '```', ...renderRegretText(s.regret).slice(1), '```', '');
  lines.push(intervalsNote(r));
  return lines.join('\n');
}

/**
 * The router's curves as series: a setting whose operating points all land on one spot (every fold fell back to
 * one model, say) is no line but one marker, drawn above the model points so its legend entry is never an
 * invisible curve under another point.
 */
export function routerSeries(r: MatrixReport): (LineSeriesOption | ScatterSeriesOption)[] {
  const f = (s: string) => Number(s);
  const costSpan = Math.max(...r.models.map((m) => f(m.cost_per_task_usd)), f(r.oracle.cost_per_task_usd)) || 1;
  return r.settings.map((s) => {
    const name = `router, ${s.setting.replace('_', ' ')}`;
    const data = [...s.points].sort((a, b) => f(a.cost_per_task_usd) - f(b.cost_per_task_usd)).map((p) => [f(p.cost_per_task_usd), p.solved_rate.estimate ?? 0] as [number, number]);
    const xs = data.map(([x]) => x);
    const ys = data.map(([, y]) => y);
    const onePoint = Math.max(...xs) - Math.min(...xs) <= costSpan * 0.005 && Math.max(...ys) - Math.min(...ys) <= 0.002;
    if (onePoint) return { type: 'scatter', name, symbol: 'triangle', symbolSize: 16, z: 5, data: data.slice(0, 1), itemStyle: { color: SETTING_COLOR[s.setting], borderColor: '#ffffff', borderWidth: 1 } };
    return { type: 'line', name, data, z: 3, lineStyle: { color: SETTING_COLOR[s.setting] }, itemStyle: { color: SETTING_COLOR[s.setting] }, symbolSize: 6 };
  });
}

/** The main chart as inline SVG: model labels by display name when the importer gave one. */
export function renderMatrixChart(r: MatrixReport, size = { width: 900, height: 520 }, names: Readonly<Record<string, string>> = {}): string {
  const f = (s: string) => Number(s);
  const singles: ScatterSeriesOption = {
    type: 'scatter',
    name: 'single models',
    symbolSize: 12,
    z: 2,
    data: r.models.map((m) => ({ name: shown(m.model, names), value: [f(m.cost_per_task_usd), m.solved_rate.estimate ?? 0] })),
    label: { show: true, position: 'right', formatter: (p) => String(p.name), fontSize: 12 },
    labelLayout: { moveOverlap: 'shiftY' },
    itemStyle: { color: '#0969da' },
  };
  // Dashed and above the curves: a router curve that follows the hull (a fallback to fixed mixes) leaves it visible.
  const hull: LineSeriesOption = { type: 'line', name: 'hull of fixed mixes', z: 4, data: r.hull.map((v) => [f(v.cost_per_task_usd), v.solved_rate]), lineStyle: { color: '#0969da', type: [6, 6], width: 2 }, symbol: 'none' };
  const oracle: ScatterSeriesOption = { type: 'scatter', name: 'oracle', symbol: 'diamond', symbolSize: 14, data: [[f(r.oracle.cost_per_task_usd), r.oracle.solved_rate.estimate ?? 0]], itemStyle: { color: '#1a7f37' } };
  const curves = routerSeries(r);
  const rates = [...r.models.map((m) => m.solved_rate.estimate ?? 0), r.oracle.solved_rate.estimate ?? 0, ...r.settings.flatMap((s) => s.points.map((p) => p.solved_rate.estimate ?? 0))];
  const yMin = Math.max(0, Math.floor(Math.min(...rates) * 20) / 20 - 0.05);
  const yMax = Math.min(1, Math.ceil(Math.max(...rates) * 20) / 20 + 0.02);
  const option: ChartOption = {
    animation: false,
    textStyle: { fontFamily: FONT },
    legend: { top: 0, left: 8, right: 8 },
    grid: { left: 70, right: 200, top: 60, bottom: 60 },
    xAxis: { type: 'value', name: 'cost per task (USD)', nameLocation: 'middle', nameGap: 35, axisLabel: { formatter: (v: number) => `$${Number(v.toPrecision(3))}` } },
    yAxis: { type: 'value', min: yMin, max: yMax, name: 'solved rate', nameLocation: 'middle', nameGap: 50, axisLabel: { formatter: (v: number) => `${Math.round(v * 100)}%` } },
    series: [singles, oracle, ...curves, hull],
  };
  return svgOf(option, size);
}

/** The online cumulative regret as inline SVG: regret in tasks against the position in the arrival order, the calibration window marked. */
export function renderRegretChart(g: OnlineRegret, size = { width: 900, height: 300 }): string {
  const data = [[0, 0] as [number, number], ...g.series.map((p) => [p.task, p.regret_tasks] as [number, number])];
  const option: ChartOption = {
    animation: false,
    textStyle: { fontFamily: FONT },
    grid: { left: 70, right: 40, top: 30, bottom: 60 },
    xAxis: { type: 'value', min: 0, max: g.tasks, name: 'task (arrival order)', nameLocation: 'middle', nameGap: 35 },
    yAxis: { type: 'value', name: `regret vs ${g.best_fixed_model} (tasks)`, nameLocation: 'middle', nameGap: 50 },
    series: [
      { type: 'line', name: 'cumulative regret', data, symbol: 'none', lineStyle: { color: SETTING_COLOR.online, width: 2 } },
      // The calibration window's end, where the chosen point starts being judged.
      { type: 'line', name: 'calibration window', data: [[g.window, Math.min(0, ...data.map(([, y]) => y))], [g.window, Math.max(0, ...data.map(([, y]) => y))]], symbol: 'none', lineStyle: { color: '#8c959f', type: [4, 4] } },
    ],
  };
  return svgOf(option, size);
}

/** Self-contained HTML: the headline's first sentence with its other sentences under it, the chart, the tables. */
export function renderMatrixHtml(r: MatrixReport, names: Readonly<Record<string, string>> = {}): string {
  const h = htmlText;
  const { lead, details } = verdictLead(withNames(r.headline, names));
  const body = tables(r, names, true)
    .map((t) => `<h3>${h(t.title)}</h3><div class="scroll"><table><thead><tr>${t.head.map((c) => `<th>${h(c)}</th>`).join('')}</tr></thead><tbody>${t.rows.map((row) => `<tr>${row.map((c) => `<td>${h(c)}</td>`).join('')}</tr>`).join('')}</tbody></table></div>${t.notes.map((n) => `<p>${h(n.trim())}</p>`).join('')}`)
    .join('\n');
  return `<!doctype html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${h(r.provenance.matrix)}: routing on recorded outcomes</title><style>body{font-family:${FONT};max-width:1000px;margin:2em auto;padding:0 1rem;color:#1f2328}p.headline{font-size:1.25em;font-weight:bold;margin-bottom:0.4em}ul.details{margin-top:0}svg{max-width:100%;height:auto}.scroll{overflow-x:auto}.iv{white-space:nowrap}table{border-collapse:collapse;margin-bottom:1.5em}td,th{border:1px solid #d0d7de;padding:4px 8px;font-size:0.9em;text-align:left}</style></head><body>
<p class="headline">${h(lead)}</p>
${details.length ? `<ul class="details">${details.map((d) => `<li>${h(d)}</li>`).join('')}</ul>` : ''}
${renderMatrixChart(r, undefined, names)}
${body}
${r.settings.map((s) => (s.regret ? `<h3>Online: cumulative regret against the best fixed choice</h3><p>${h(regretSummary(s.regret))}</p>${renderRegretChart(s.regret)}` : '')).join('\n')}
<p>${h(intervalsNote(r))} Run ${h(r.provenance.run_id)}, ${h(r.provenance.started_at)}.</p>
</body></html>
`;
}

/** An echarts option rendered server-side to an SVG string. */
function svgOf(option: ChartOption, size: { width: number; height: number }): string {
  const chart = echarts.init(null, null, { renderer: 'svg', ssr: true, width: size.width, height: size.height });
  try {
    chart.setOption(option);
    return chart.renderToSVGString();
  } finally {
    chart.dispose();
  }
}
