import { Decimal } from 'decimal.js';
import * as echarts from 'echarts/core';
import { ScatterChart, type ScatterSeriesOption } from 'echarts/charts';
import { GraphicComponent, GridComponent, type GraphicComponentOption, type GridComponentOption } from 'echarts/components';
import { SVGRenderer } from 'echarts/renderers';
import type { BenchReport } from '../../schemas/types/report.ts';
import { wrapWords } from './legend.ts';

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
  if (!m) {
    const a = report.aggregate;
    return a.solved_rate === null ? [] : [{ label: `${short(report.provenance.actual_model)} (this run)`, kind: 'arm', cost_usd: new Decimal(a.savings.actual_repriced_usd).toNumber(), solved_rate: a.solved_rate }];
  }
  const names = ARM_NAMES(m.cheap_model, m.strong_model);
  const named = (arm: string) => names[arm] ?? { label: arm, kind: 'arm' as const };
  if (m.oracle) return m.oracle.points.map((p) => ({ ...named(p.arm), cost_usd: new Decimal(p.cost_usd).toNumber(), solved_rate: p.solved_rate }));
  return m.passes.filter((p) => p.solved_rate !== null).map((p) => ({ ...named(p.pass), cost_usd: new Decimal(p.actual_cost_usd).toNumber(), solved_rate: p.solved_rate! }));
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
 * at least `gap` pixels from the next, inside [top, bottom]. Returns the label heights in the input order.
 */
export function spreadLabels(ys: readonly number[], gap: number, top: number, bottom: number): number[] {
  const order = ys.map((y, i) => ({ y, i })).sort((a, b) => a.y - b.y || a.i - b.i);
  const placed = order.map((o) => o.y);
  for (let j = 0; j < placed.length; j++) placed[j] = Math.max(placed[j]!, j === 0 ? top : placed[j - 1]! + gap);
  // Pushed past the bottom: slide the stack back up, keeping the gaps.
  for (let j = placed.length - 1; j >= 0; j--) placed[j] = Math.min(placed[j]!, j === placed.length - 1 ? bottom : placed[j + 1]! - gap);
  const out = new Array<number>(ys.length);
  order.forEach((o, j) => (out[o.i] = placed[j]!));
  return out;
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
  const labelYs = [...spreadLabels(measured.map((p) => py(p.solved_rate)), 24, plot.y0, plot.y1)];
  for (let i = measured.length; i < ordered.length; i++) labelYs.push(Math.min(plot.y1 + 40, Math.max(...labelYs, plot.y0) + 24));
  const labelX = plot.x1 + 36;
  const series: ScatterSeriesOption = {
    type: 'scatter',
    symbolSize: 18,
    data: ordered.map((p) => ({ name: p.label, value: [Math.min(p.cost_usd, xMax), p.solved_rate], symbol: KIND_STYLE[p.kind].symbol, itemStyle: { color: KIND_STYLE[p.kind].color, opacity: 0.85 } })),
  };
  const elements = ordered.flatMap((p, i) => [
    { type: 'line' as const, shape: { x1: px(Math.min(p.cost_usd, xMax)) + 10, y1: py(p.solved_rate), x2: labelX - 6, y2: labelYs[i]! }, style: { stroke: '#afb8c1', lineWidth: 1 } },
    {
      type: 'text' as const,
      x: labelX,
      y: labelYs[i]! - 9,
      style: { text: `${p.label}  ${Math.round(p.solved_rate * 100)}% · $${Number(p.cost_usd.toPrecision(3))}`, fontSize: 15, ...(p.kind === 'model' ? { fontStyle: 'italic' as const } : {}), fill: KIND_STYLE[p.kind].color === KIND_STYLE.arm.color ? INK : KIND_STYLE[p.kind].color, fontFamily: FONT },
    },
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
  const verdict = h?.verdict ?? 'No headline: this run has no arm to compare (see the details below).';
  return { title, verdict, note: report.banner ? 'Simulated provider: emulator numbers, not a real model\'s.' : null };
}

/** The headline card as a 16:9 SVG for slides: title, the verdict sentence, and the simulated-provider note. */
export function renderHeadlineCard(report: BenchReport, size: { width: number; height: number } = { width: 960, height: 300 }): string {
  const { title, verdict, note } = headlineText(report);
  const lines = wrapWords(verdict, 62);
  const graphic = [
    { type: 'rect', shape: { x: 0, y: 0, width: size.width, height: size.height }, style: { fill: '#ffffff', stroke: '#d0d7de' } },
    { type: 'text', x: 32, y: 28, style: { text: title, fontSize: 20, fill: MUTED, fontFamily: FONT } },
    ...lines.map((l, i) => ({ type: 'text' as const, x: 32, y: 72 + i * 36, style: { text: l, fontSize: 26, fontWeight: 'bold' as const, fill: INK, fontFamily: FONT } })),
    ...(note ? [{ type: 'text' as const, x: 32, y: size.height - 40, style: { text: note, fontSize: 16, fill: '#9a6700', fontFamily: FONT } }] : []),
  ];
  return renderSvg({ graphic: { elements: graphic } as GraphicComponentOption }, size.width, Math.max(size.height, 120 + lines.length * 36));
}
