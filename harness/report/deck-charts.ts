import { Decimal } from 'decimal.js';
import * as echarts from 'echarts/core';
import { ScatterChart, type ScatterSeriesOption } from 'echarts/charts';
import { GraphicComponent, GridComponent, type GraphicComponentOption, type GridComponentOption } from 'echarts/components';
import { SVGRenderer } from 'echarts/renderers';
import type { BenchReport } from '../../schemas/types/report.ts';
import { wrapWords } from './legend.ts';
import { moneyText } from './number-text.ts';
import { verdictLead } from './verdict-lead.ts';

echarts.use([ScatterChart, GridComponent, GraphicComponent, SVGRenderer]);

type DeckOption = echarts.ComposeOption<ScatterSeriesOption | GridComponentOption | GraphicComponentOption>;

/** One point of the main chart: an arm of the run, a reference router computed from the arms, or the emulator's model-based optimum (not measured). */
export interface ArmPoint {
  label: string;
  kind: 'arm' | 'oracle' | 'random' | 'model';
  cost_usd: number;
  solved_rate: number;
}

// Arial's metrics are what echarts assumes server-side, so its text layout matches what a browser draws.
const FONT = 'Arial, Helvetica, Liberation Sans, sans-serif';
const INK = '#1f2328';
const MUTED = '#59636e';
const KIND_STYLE: Record<ArmPoint['kind'], { color: string; symbol: string }> = {
  arm: { color: '#0969da', symbol: 'circle' },
  oracle: { color: '#1a7f37', symbol: 'diamond' },
  random: { color: '#9a6700', symbol: 'triangle' },
  // Hollow and grey: an expectation from the emulator's model, not something that ran.
  model: { color: '#8c959f', symbol: 'emptyDiamond' },
};

function renderSvg(option: DeckOption, width: number, height: number): string {
  const chart = echarts.init(null, null, { renderer: 'svg', ssr: true, width, height });
  try {
    chart.setOption({ animation: false, textStyle: { fontFamily: FONT, color: INK }, ...option });
    return chart.renderToSVGString();
  } finally {
    chart.dispose();
  }
}

const short = (model: string) => model.replace(/^[a-z-]+:/, '').replace(/^claude-/, '');

const ARM_NAMES = (cheap: string, strong: string): Record<string, { label: string; kind: ArmPoint['kind'] }> => ({
  A: { label: `A: always ${short(cheap)}`, kind: 'arm' },
  B: { label: `B: always ${short(strong)}`, kind: 'arm' },
  C: { label: 'C: routed', kind: 'arm' },
  'C-oos': { label: 'C-oos: routed, out of sample', kind: 'arm' },
  D: { label: 'D: delegation', kind: 'arm' },
  oracle: { label: 'hindsight oracle', kind: 'oracle' },
  true_oracle: { label: "emulator's model-based optimum (not measured)", kind: 'model' },
  random: { label: 'random router at C\'s share', kind: 'random' },
  random_oos: { label: 'random at C-oos\'s share', kind: 'random' },
});

/**
 * The points of the main chart. A3 with the oracle block: its points, which put every arm on one scale (one
 * rep of every workload); without it, each pass at its total cost. One-pass runs: the run itself. Charts are
 * pictures, so money becomes a float here only.
 */
export function armPoints(report: BenchReport): ArmPoint[] {
  const m = report.protocol_metrics;
  if (!m && report.provenance.protocol === 'signal') return signalArms(report).map((a) => ({ label: `${a.pass}: ${short(a.model)}`, kind: 'arm', cost_usd: a.cost_usd.toNumber(), solved_rate: a.solved / a.reps }));
  if (!m) {
    const a = report.aggregate;
    return a.solved_rate === null ? [] : [{ label: `${short(report.provenance.actual_model)} (this run)`, kind: 'arm', cost_usd: new Decimal(a.savings.actual_repriced_usd).toNumber(), solved_rate: a.solved_rate }];
  }
  const names = ARM_NAMES(m.cheap_model, m.strong_model);
  const named = (arm: string) => names[arm] ?? { label: arm, kind: 'arm' as const };
  if (m.oracle) return m.oracle.points.map((p) => ({ ...named(p.arm), cost_usd: new Decimal(p.cost_usd).toNumber(), solved_rate: p.solved_rate }));
  return m.passes.filter((p) => p.solved_rate !== null).map((p) => ({ ...named(p.pass), cost_usd: new Decimal(p.actual_cost_usd).toNumber(), solved_rate: p.solved_rate! }));
}

/** One arm of a `bench signal` run (cheap or strong): its model, solved reps out of its reps, and its spend. */
export interface SignalArm {
  pass: string;
  model: string;
  solved: number;
  reps: number;
  workloads: number;
  cost_usd: Decimal;
}

/**
 * A signal run's arms, cheap first: each pass of its workload results summed. The two arms ran different models
 * on the same workloads; blended into one point they would show a solved rate neither model had.
 */
export function signalArms(report: Pick<BenchReport, 'workloads'>): SignalArm[] {
  const arms = new Map<string, SignalArm>();
  for (const w of report.workloads) {
    if (w.reps.length === 0) continue;
    const a = arms.get(w.pass) ?? { pass: w.pass, model: w.model, solved: 0, reps: 0, workloads: 0, cost_usd: new Decimal(0) };
    arms.set(w.pass, { ...a, solved: a.solved + w.solved, reps: a.reps + w.reps.length, workloads: a.workloads + 1, cost_usd: a.cost_usd.plus(w.savings.actual_repriced_usd) });
  }
  const rank = (pass: string) => ['cheap', 'strong'].indexOf(pass);
  return [...arms.values()].sort((a, b) => rank(a.pass) - rank(b.pass));
}

/** The main chart's title: a signal run shows its two arms, any other run one point per arm (or the run itself). */
export function mainChartTitle(report: BenchReport): string {
  return report.provenance.protocol === 'signal' ? 'Cost against solved rate, one point per arm of the signal run (cheap and strong)' : 'Cost against solved rate, one point per arm';
}

/** What the main chart's cost axis measures for this report (the oracle block's points are one rep of every workload). */
export function costAxisLabel(report: BenchReport): string {
  return report.protocol_metrics?.oracle ? 'cost of one rep of every workload (USD)' : 'total cost (USD)';
}

/** The smallest of 1, 2, 2.5, 5 × 10^k at or above x: an axis end a reader can read. */
export function niceCeil(x: number): number {
  if (x <= 0) return 1;
  const k = Math.floor(Math.log10(x));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * 10 ** k >= x * (1 - 1e-12)) return Number((m * 10 ** k).toPrecision(3));
  return 10 ** (k + 1);
}

/**
 * Label positions for points at pixel heights `ys` (top = 0): each label as close to its point as it can be,
 * inside [top, bottom], and each at least the gap below the one above it. `gap` is one figure for every label,
 * or each label's own height (by input index) when labels run over several lines.
 */
export function spreadLabels(ys: readonly number[], gap: number | readonly number[], top: number, bottom: number): number[] {
  const height = (i: number) => (typeof gap === 'number' ? gap : gap[i]!);
  const order = ys.map((y, i) => ({ y, i })).sort((a, b) => a.y - b.y || a.i - b.i);
  const placed = order.map((o) => o.y);
  for (let j = 0; j < placed.length; j++) placed[j] = Math.max(placed[j]!, j === 0 ? top : placed[j - 1]! + height(order[j - 1]!.i));
  // Pushed past the bottom: slide the stack back up, keeping the gaps.
  for (let j = placed.length - 1; j >= 0; j--) placed[j] = Math.min(placed[j]!, j === placed.length - 1 ? bottom : placed[j + 1]! - height(order[j]!.i));
  const out = new Array<number>(ys.length);
  order.forEach((o, j) => (out[o.i] = placed[j]!));
  return out;
}

// The label column's text: 15 px Arial averages under 0.56 em a character, so this many fit its width.
const LABEL_FONT = 15;
const LABEL_LINE = 18;

/** A point's label as lines that fit `chars` characters: its name (wrapped at spaces), then its figures. */
export function labelLines(p: ArmPoint, chars: number): string[] {
  const figures = `${Math.round(p.solved_rate * 100)}% · $${Number(p.cost_usd.toPrecision(3))}`;
  const lines = wrapWords(p.label, chars);
  const last = lines.at(-1) ?? '';
  if (last.length + 2 + figures.length <= chars) lines[lines.length - 1] = `${last}  ${figures}`;
  else lines.push(figures);
  return lines;
}

/**
 * The main chart: cost against solved rate, one point per arm, sized for a slide (16:9). Labels sit in a
 * column right of the plot, spread so none overlaps another, each tied to its point by a leader line.
 */
export function renderArmChart(points: readonly ArmPoint[], size: { width: number; height: number } = { width: 960, height: 540 }, costAxis = 'total cost (USD)'): string {
  const grid = { left: 90, right: 330, top: 30, bottom: 70 };
  const plot = { x0: grid.left, x1: size.width - grid.right, y0: grid.top, y1: size.height - grid.bottom };
  // The axes and the label column are laid out by the measured points; a model-based point is clipped to them and its label goes last.
  const measured = points.filter((p) => p.kind !== 'model');
  const ordered = [...measured, ...points.filter((p) => p.kind === 'model')];
  const xMax = niceCeil(Math.max(0, ...measured.map((p) => p.cost_usd)) * 1.08);
  const px = (cost: number) => plot.x0 + (cost / xMax) * (plot.x1 - plot.x0);
  const py = (rate: number) => plot.y1 - rate * (plot.y1 - plot.y0);
  const labelX = plot.x1 + 36;
  // Each label wraps to the column (never past the chart's right edge) and takes the height of its lines.
  const chars = Math.floor((size.width - labelX - 8) / (LABEL_FONT * 0.56));
  // A point drawn on top of another (the oracle choosing B everywhere, the random router at a 0% share on A) says so.
  const near = (a: ArmPoint, b: ArmPoint) => Math.abs(px(Math.min(a.cost_usd, xMax)) - px(Math.min(b.cost_usd, xMax))) < 4 && Math.abs(py(a.solved_rate) - py(b.solved_rate)) < 4;
  const named = ordered.map((p, i) => {
    const under = ordered.slice(0, i).find((q) => near(p, q));
    return under ? { ...p, label: `${p.label} (on ${under.label.split(':')[0]}'s point)` } : p;
  });
  const lines = named.map((p) => labelLines(p, chars));
  const heights = lines.map((l) => l.length * LABEL_LINE + 6);
  const labelYs = [...spreadLabels(measured.map((p) => py(p.solved_rate)), heights.slice(0, measured.length), plot.y0, plot.y1)];
  // The model-based point goes under the measured labels, as low as the chart lets its lines fit.
  for (let i = measured.length; i < ordered.length; i++) {
    const below = Math.max(plot.y0, ...labelYs.map((y, j) => y + heights[j]!));
    labelYs.push(Math.min(below, size.height - 4 - lines[i]!.length * LABEL_LINE + LABEL_LINE / 2));
  }
  const series: ScatterSeriesOption = {
    type: 'scatter',
    symbolSize: 18,
    data: ordered.map((p) => ({ name: p.label, value: [Math.min(p.cost_usd, xMax), p.solved_rate], symbol: KIND_STYLE[p.kind].symbol, itemStyle: { color: KIND_STYLE[p.kind].color, opacity: 0.85 } })),
  };
  const elements = ordered.flatMap((p, i) => [
    { type: 'line' as const, shape: { x1: px(Math.min(p.cost_usd, xMax)) + 10, y1: py(p.solved_rate), x2: labelX - 6, y2: labelYs[i]! }, style: { stroke: '#afb8c1', lineWidth: 1 } },
    ...lines[i]!.map((text, k) => ({
      type: 'text' as const,
      x: labelX,
      y: labelYs[i]! - LABEL_LINE / 2 + k * LABEL_LINE,
      style: { text, fontSize: LABEL_FONT, ...(p.kind === 'model' ? { fontStyle: 'italic' as const } : {}), fill: KIND_STYLE[p.kind].color === KIND_STYLE.arm.color ? INK : KIND_STYLE[p.kind].color, fontFamily: FONT },
    })),
  ]);
  return renderSvg(
    {
      grid: { left: grid.left, right: grid.right, top: grid.top, bottom: grid.bottom },
      xAxis: {
        type: 'value',
        min: 0,
        max: xMax,
        name: costAxis,
        nameLocation: 'middle',
        nameGap: 42,
        nameTextStyle: { fontSize: 16, color: MUTED },
        axisLabel: { fontSize: 14, formatter: (v: number) => `$${Number(v.toPrecision(3))}` },
      },
      yAxis: {
        type: 'value',
        min: 0,
        max: 1,
        name: 'solved rate',
        nameLocation: 'middle',
        nameGap: 60,
        nameTextStyle: { fontSize: 16, color: MUTED },
        axisLabel: { fontSize: 14, formatter: (v: number) => `${Math.round(v * 100)}%` },
      },
      series: [series],
      graphic: { elements } as GraphicComponentOption,
    },
    size.width,
    size.height,
  );
}

/** The headline as lines of text: what was compared, then the verdict. Shared by the HTML card and the SVG card. */
export function headlineText(report: BenchReport): { title: string; verdict: string; note: string | null } {
  const h = report.headline;
  const p = report.provenance;
  const title =
    h?.kind === 'routed_vs_measured_strong'
      ? `Routed (Pass ${h.routed_pass}) vs always-${short(h.strong_model)} (Pass ${h.strong_pass}), ${h.units} paired reps`
      : `${short(p.actual_model)} vs ${short(p.baseline_model)} re-priced on the same tokens`;
  if (!h && p.protocol === 'signal') return { title: `bench signal: ${short(p.actual_model)} (cheap) and ${short(p.baseline_model)} (strong) on the same workloads`, verdict: signalVerdict(report), note: report.banner ? 'Simulated provider: emulator numbers, not a real model\'s.' : null };
  const verdict = h?.verdict ?? 'No headline: this run has no arm to compare (see the details below).';
  return { title, verdict, note: report.banner ? 'Simulated provider: emulator numbers, not a real model\'s.' : null };
}

/**
 * A signal run in words: what each arm solved and spent, then what the run is for. Facts only: the signal
 * verdict per workload is `bench signal`'s table, and the gap between two arms is not a routing result.
 */
export function signalVerdict(report: Pick<BenchReport, 'workloads' | 'provenance'>): string {
  const arms = signalArms(report);
  if (arms.length === 0) return 'Signal run with no rep: nothing to show.';
  const workloads = Math.max(...arms.map((a) => a.workloads));
  const each = arms.map((a) => `${short(a.model)} (${a.pass}) solved ${Math.round((100 * a.solved) / a.reps)}% (${a.solved} of ${a.reps} reps) for ${moneyText(a.cost_usd)}`);
  return `Signal run on ${workloads} workload${workloads === 1 ? '' : 's'}: ${each.join('; ')}. Each arm ran one model on every turn; the run measures the gap between them per workload (\`bench signal\` prints each workload's verdict), not routing. To measure routing: \`bench run --protocol a3\`.`;
}

/**
 * The headline card as a 16:9 SVG for slides: the verdict (the headline's first sentence: its scope in small type,
 * its claim in bold), and the simulated-provider note under it. The card grows to hold every line.
 */
export function renderHeadlineCard(report: BenchReport, size: { width: number; height: number } = { width: 960, height: 300 }): string {
  const { title, verdict, note } = headlineText(report);
  const { scope, claim } = verdictLead(verdict);
  const texts: { text: string; size: number; bold: boolean; fill: string }[] = [
    ...wrapWords(scope ?? title, 80).map((text) => ({ text, size: 20, bold: false, fill: MUTED })),
    ...wrapWords(claim, 62).map((text) => ({ text, size: 26, bold: true, fill: INK })),
  ];
  let y = 28;
  const elements: object[] = [];
  for (const [i, t] of texts.entries()) {
    if (i > 0) y += (texts[i - 1]!.size === t.size ? 0 : 10) + Math.round(t.size * 1.38);
    elements.push({ type: 'text', x: 32, y, style: { text: t.text, fontSize: t.size, ...(t.bold ? { fontWeight: 'bold' } : {}), fill: t.fill, fontFamily: FONT } });
  }
  y += 36 + 20;
  if (note) elements.push({ type: 'text', x: 32, y, style: { text: note, fontSize: 16, fill: '#9a6700', fontFamily: FONT } });
  const height = Math.max(size.height, y + 40);
  const card = { type: 'rect', shape: { x: 0, y: 0, width: size.width, height }, style: { fill: '#ffffff', stroke: '#d0d7de' } };
  return renderSvg({ graphic: { elements: [card, ...elements] } as GraphicComponentOption }, size.width, height);
}
