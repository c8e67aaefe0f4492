import * as echarts from 'echarts/core';
import { LineChart, ScatterChart, type LineSeriesOption, type ScatterSeriesOption } from 'echarts/charts';
import { GridComponent, LegendComponent, type GridComponentOption, type LegendComponentOption } from 'echarts/components';
import { SVGRenderer } from 'echarts/renderers';
import type { Baseline, Estimate, MatrixReport, Setting } from '../../schemas/types/matrix-report.ts';
import { pctText, ptsText, SETTING_TEXT, usdText } from './matrix-report.ts';

/**
 * The matrix report rendered: stdout text, Markdown and self-contained HTML, each opening with the
 * headline sentence. The main chart plots cost per task against solved rate: single models as labelled
 * points, the hull of fixed mixes as a line, the router's curve per setting, and the oracle.
 */

echarts.use([LineChart, ScatterChart, GridComponent, LegendComponent, SVGRenderer]);
type ChartOption = echarts.ComposeOption<LineSeriesOption | ScatterSeriesOption | GridComponentOption | LegendComponentOption>;

const FONT = 'Arial, Helvetica, Liberation Sans, sans-serif';
const SETTING_COLOR: Record<Setting['setting'], string> = { in_sample: '#8c959f', unseen_tasks: '#cf222e', new_workspace: '#8250df', online: '#bf8700' };

const bandText = (b: { low: number; high: number } | null | undefined) => (b ? `[${b.low >= 0 ? '+' : '\u2212'}${Math.abs(b.low).toFixed(1)}, ${b.high >= 0 ? '+' : '\u2212'}${Math.abs(b.high).toFixed(1)}]` : 'n/a');
const num = (e: Pick<Estimate, 'estimate' | 'ci_low' | 'ci_high'>, digits = 3) => (e.estimate === null ? 'n/a' : `${e.estimate.toFixed(digits)}${e.ci_low !== null && e.ci_high !== null ? ` [${e.ci_low.toFixed(digits)}, ${e.ci_high.toFixed(digits)}]` : ''}`);
const mixText = (mix: Readonly<Record<string, number | undefined>>) =>
  Object.entries(mix)
    .filter((e): e is [string, number] => (e[1] ?? 0) > 0)
    .map(([m, s]) => `${m} ${(100 * s).toFixed(0)}%`)
    .join(', ');

const INTERVALS =
  'Intervals: paired 95%, cluster-robust over the clusters (CR2); CPT intervals from a cluster bootstrap. Hull gap and vs-random are in points of solved rate. A swept point supports a claim only where its simultaneous band excludes 0; every verdict comes from the chosen point.';

/** The rows of every table, shared by the text and Markdown renderings. */
function tables(r: MatrixReport): { title: string; head: string[]; rows: string[][] }[] {
  const out: { title: string; head: string[]; rows: string[][] }[] = [];
  out.push({
    title: `Baselines on ${r.provenance.tasks} tasks, ${r.provenance.clusters} clusters (${r.provenance.matrix}; source ${r.provenance.source.name}, ${r.provenance.source.licence})`,
    head: ['arm', '$/task', 'solved', 'on hull'],
    rows: [
      ...r.models.map((m) => [m.model, usdText(m.cost_per_task_usd), pctText(m.solved_rate), m.on_hull ? 'yes' : 'no']),
      ['oracle (cheapest model that solves each task)', usdText(r.oracle.cost_per_task_usd), pctText(r.oracle.solved_rate), mixText(r.oracle.mix)],
    ],
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
      head: ['cost_weight', '$/task', 'solved', 'vs hull', 'vs hull, band', 'vs random at mix', 'PGR', 'oracle capture', 'mix'],
      rows: s.points.map((p) => [String(p.cost_weight), usdText(p.cost_per_task_usd), pctText(p.solved_rate), ptsText(p.hull_gap_pts), bandText(p.hull_gap_band), ptsText(p.vs_random_at_mix_pts), num(p.pgr, 2), num(p.oracle_capture, 2), mixText(p.mix)]),
    });
    const c = s.chosen;
    if (!c) continue;
    const b = s.baselines;
    const row = (name: string, x: Baseline | null | undefined): string[][] => (x ? [[name, usdText(x.cost_per_task_usd), pctText(x.solved_rate), ptsText(x.hull_gap_pts), ptsText(x.router_minus_baseline_pts)]] : []);
    const how = c.fallback_model ? `every fold fell back to ${c.fallback_model}` : `cost_weight ${c.cost_weight} (${c.chosen_by})`;
    out.push({
      title: `Chosen point, ${SETTING_TEXT[s.setting].phrase}: target ${c.target}, ${how}, ${c.tasks_judged} tasks judged; baselines on the same folds and target`,
      head: ['arm', '$/task', 'solved', 'vs hull', 'router minus arm'],
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

/** Plain text for stdout. */
export function renderMatrixText(r: MatrixReport, paths: { json: string | null; db: string | null } = { json: null, db: null }): string {
  const lines = [r.headline, ''];
  for (const t of tables(r)) {
    const widths = t.head.map((h, i) => Math.max(h.length, ...t.rows.map((row) => row[i]!.length)));
    const fmt = (row: string[]) => row.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd();
    lines.push(t.title, fmt(t.head), widths.map((w) => '-'.repeat(w)).join('  '), ...t.rows.map(fmt), '');
  }
  lines.push(INTERVALS);
  if (paths.db) lines.push(`DB: ${paths.db}`);
  if (paths.json) lines.push(`JSON: ${paths.json}`);
  return lines.join('\n');
}

/** Markdown (decks, the GitHub step summary). */
export function renderMatrixMarkdown(r: MatrixReport): string {
  const esc = (s: string) => s.replaceAll('|', '\\|');
  const lines = [`**${esc(r.headline)}**`, ''];
  for (const t of tables(r)) lines.push(`*${esc(t.title)}*`, '', `| ${t.head.join(' | ')} |`, `| ${t.head.map(() => '---').join(' | ')} |`, ...t.rows.map((row) => `| ${row.map(esc).join(' | ')} |`), '');
  lines.push(INTERVALS);
  return lines.join('\n');
}

/** The main chart as inline SVG. */
export function renderMatrixChart(r: MatrixReport, size = { width: 900, height: 520 }): string {
  const f = (s: string) => Number(s);
  const singles: ScatterSeriesOption = {
    type: 'scatter',
    name: 'single models',
    symbolSize: 12,
    data: r.models.map((m) => ({ name: m.model, value: [f(m.cost_per_task_usd), m.solved_rate.estimate ?? 0] })),
    label: { show: true, position: 'right', formatter: (p) => String(p.name), fontSize: 12 },
    itemStyle: { color: '#0969da' },
  };
  const hull: LineSeriesOption = { type: 'line', name: 'hull of fixed mixes', data: r.hull.map((v) => [f(v.cost_per_task_usd), v.solved_rate]), lineStyle: { color: '#0969da', type: 'dashed' }, symbol: 'none' };
  const oracle: ScatterSeriesOption = { type: 'scatter', name: 'oracle', symbol: 'diamond', symbolSize: 14, data: [[f(r.oracle.cost_per_task_usd), r.oracle.solved_rate.estimate ?? 0]], itemStyle: { color: '#1a7f37' } };
  const curves: LineSeriesOption[] = r.settings.map((s) => ({
    type: 'line',
    name: `router, ${s.setting.replace('_', ' ')}`,
    data: [...s.points].sort((a, b) => f(a.cost_per_task_usd) - f(b.cost_per_task_usd)).map((p) => [f(p.cost_per_task_usd), p.solved_rate.estimate ?? 0]),
    lineStyle: { color: SETTING_COLOR[s.setting] },
    itemStyle: { color: SETTING_COLOR[s.setting] },
    symbolSize: 6,
  }));
  const rates = [...r.models.map((m) => m.solved_rate.estimate ?? 0), r.oracle.solved_rate.estimate ?? 0, ...r.settings.flatMap((s) => s.points.map((p) => p.solved_rate.estimate ?? 0))];
  const yMin = Math.max(0, Math.floor(Math.min(...rates) * 20) / 20 - 0.05);
  const yMax = Math.min(1, Math.ceil(Math.max(...rates) * 20) / 20 + 0.02);
  const option: ChartOption = {
    animation: false,
    textStyle: { fontFamily: FONT },
    legend: { top: 0 },
    grid: { left: 70, right: 160, top: 50, bottom: 60 },
    xAxis: { type: 'value', name: 'cost per task (USD)', nameLocation: 'middle', nameGap: 35, axisLabel: { formatter: (v: number) => `$${Number(v.toPrecision(3))}` } },
    yAxis: { type: 'value', min: yMin, max: yMax, name: 'solved rate', nameLocation: 'middle', nameGap: 50, axisLabel: { formatter: (v: number) => `${Math.round(v * 100)}%` } },
    series: [hull, singles, oracle, ...curves],
  };
  const chart = echarts.init(null, null, { renderer: 'svg', ssr: true, width: size.width, height: size.height });
  try {
    chart.setOption(option);
    return chart.renderToSVGString();
  } finally {
    chart.dispose();
  }
}

/** Self-contained HTML: the headline, the chart, the tables. */
export function renderMatrixHtml(r: MatrixReport): string {
  const h = (s: string) => s.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
  const body = tables(r)
    .map((t) => `<h3>${h(t.title)}</h3><table><thead><tr>${t.head.map((c) => `<th>${h(c)}</th>`).join('')}</tr></thead><tbody>${t.rows.map((row) => `<tr>${row.map((c) => `<td>${h(c)}</td>`).join('')}</tr>`).join('')}</tbody></table>`)
    .join('\n');
  return `<!doctype html><html><head><meta charset="utf-8"><title>${h(r.provenance.matrix)}: routing on recorded outcomes</title><style>body{font-family:${FONT};max-width:1000px;margin:2em auto;color:#1f2328}p.headline{font-size:1.2em;font-weight:bold}table{border-collapse:collapse;margin-bottom:1.5em}td,th{border:1px solid #d0d7de;padding:4px 8px;font-size:0.9em;text-align:left}</style></head><body>
<p class="headline">${h(r.headline)}</p>
${renderMatrixChart(r)}
${body}
<p>${h(INTERVALS)} Run ${h(r.provenance.run_id)}, ${h(r.provenance.started_at)}.</p>
</body></html>
`;
}
