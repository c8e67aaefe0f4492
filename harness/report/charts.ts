import { Decimal } from 'decimal.js';
import * as echarts from 'echarts/core';
import { BarChart, type BarSeriesOption } from 'echarts/charts';
import { GridComponent, LegendComponent, type GridComponentOption, type LegendComponentOption } from 'echarts/components';
import { SVGRenderer } from 'echarts/renderers';
import type { BenchReport, ProtocolMetrics } from '../../schemas/types/report.ts';
import type { SectionId } from './report-document.ts';

echarts.use([BarChart, GridComponent, LegendComponent, SVGRenderer]);

type ChartOption = echarts.ComposeOption<BarSeriesOption | GridComponentOption | LegendComponentOption>;

/** One chart of the report as inline SVG, and the report section it illustrates. */
export interface ReportChart {
  id: string;
  section: SectionId;
  title: string;
  svg: string;
}

const WIDTH = 760;
const WIDTH_SMALL = 250;
// Arial's metrics are what echarts assumes when it lays out text without a canvas (server-side), so labels fit.
const FONT = 'Arial, Helvetica, Liberation Sans, sans-serif'; // unquoted: echarts writes it into a style attribute unescaped

/** Server-side rendering: no DOM, no animation, the SVG string is the whole result. */
function renderSvg(option: ChartOption, height: number, width = WIDTH): string {
  const chart = echarts.init(null, null, { renderer: 'svg', ssr: true, width, height });
  try {
    chart.setOption({ animation: false, textStyle: { fontFamily: FONT }, ...option });
    return chart.renderToSVGString();
  } finally {
    chart.dispose();
  }
}

// Charts are pictures, so money becomes a float here and only here; tables and JSON keep the exact Decimal.
const dollars = (s: string) => new Decimal(s).toNumber();
const dollarLabel = (v: unknown) => `$${Number(v).toFixed(4)}`;
const percentLabel = (v: unknown) => `${Number(v).toFixed(1)}%`;

function resultLabels(report: BenchReport): string[] {
  const passes = new Set(report.workloads.map((w) => w.pass));
  return report.workloads.map((w) => (passes.size > 1 ? `${w.workload} (${w.pass})` : w.workload));
}

/** Actual vs baseline cost per workload result, as grouped horizontal bars (long workload names stay readable). */
function costChart(report: BenchReport): ReportChart {
  const labels = resultLabels(report);
  const bar = (name: string, values: number[]): BarSeriesOption => ({
    type: 'bar',
    name,
    data: values,
    label: { show: true, position: 'right', fontSize: 10, formatter: (p) => dollarLabel(p.value) },
  });
  const svg = renderSvg(
    {
      legend: { top: 0 },
      grid: { left: 8, right: 70, top: 30, bottom: 8, outerBoundsMode: 'same', outerBoundsContain: 'all' },
      xAxis: { type: 'value', axisLabel: { formatter: (v: number) => `$${v}` } },
      yAxis: { type: 'category', data: labels, inverse: true },
      series: [
        bar('actual $', report.workloads.map((w) => dollars(w.savings.actual_repriced_usd))),
        bar(`baseline $ (${report.provenance.baseline_model})`, report.workloads.map((w) => dollars(w.savings.baseline_repriced_usd))),
      ],
    },
    70 + Math.max(1, labels.length) * 44,
  );
  return { id: 'cost', section: 'workloads', title: 'Actual vs baseline cost per workload', svg };
}

const PASS_COLOURS: Record<string, string> = { A: '#8c959f', B: '#0969da', C: '#1a7f37', 'C-oos': '#9a6700', D: '#8250df' };

/**
 * Cost by pass for one workload, each bar labelled with its solved reps: one small chart per workload, so a
 * suite of a dozen workloads reads as a grid instead of one column of bars thousands of pixels tall.
 */
function workloadMultiple(report: BenchReport, workload: string): ReportChart {
  const rows = report.workloads.filter((w) => w.workload === workload);
  const svg = renderSvg(
    {
      // The figure's caption names the workload; the chart itself stays all plot.
      grid: { left: 8, right: 8, top: 18, bottom: 4, outerBoundsMode: 'same', outerBoundsContain: 'all' },
      xAxis: { type: 'category', data: rows.map((w) => w.pass), axisLabel: { fontSize: 11 } },
      yAxis: { type: 'value', axisLabel: { fontSize: 10, formatter: (v: number) => `$${Number(v.toPrecision(2))}` }, splitNumber: 3 },
      series: [
        {
          type: 'bar',
          barMaxWidth: 28,
          data: rows.map((w) => ({ value: dollars(w.savings.actual_repriced_usd), itemStyle: { color: PASS_COLOURS[w.pass] ?? '#0969da' } })),
          label: { show: true, position: 'top', fontSize: 10, formatter: (p) => `${rows[p.dataIndex]!.solved}/${rows[p.dataIndex]!.reps.length}` },
        },
      ],
    },
    170,
    WIDTH_SMALL,
  );
  return { id: `workload-${rows[0]!.workload.replace(/[^a-z0-9-]/gi, '_')}`, section: 'workloads', title: workload, svg };
}

/** The per-workload charts: one grouped bar chart for a one-pass run; small multiples by pass for A3. */
export function workloadCharts(report: BenchReport): ReportChart[] {
  const passes = new Set(report.workloads.map((w) => w.pass));
  if (passes.size <= 1) return [costChart(report)];
  return [...new Set(report.workloads.map((w) => w.workload))].map((w) => workloadMultiple(report, w));
}

/** Slot-4 fire and inversion rates by pass, in percent of routed turns. */
function slot4Chart(m: ProtocolMetrics): ReportChart {
  const asPct = (x: number | null) => (x === null ? '-' : x * 100);
  const bar = (name: string, values: (number | '-')[]): BarSeriesOption => ({
    type: 'bar',
    name,
    data: values,
    label: { show: true, position: 'top', fontSize: 10, formatter: (p) => percentLabel(p.value) },
  });
  const svg = renderSvg(
    {
      legend: { top: 0 },
      grid: { left: 8, right: 8, top: 36, bottom: 8, outerBoundsMode: 'same', outerBoundsContain: 'all' },
      xAxis: { type: 'category', data: m.passes.map((p) => `pass ${p.pass}`) },
      yAxis: { type: 'value', min: 0, max: 100, axisLabel: { formatter: '{value}%' } },
      series: [bar('slot-4 inversion rate', m.passes.map((p) => asPct(p.slot4.inversion_rate))), bar('slot-4 fire rate', m.passes.map((p) => asPct(p.slot4.fire_rate)))],
    },
    300,
  );
  return { id: 'slot4-by-pass', section: 'a3', title: 'Slot-4 inversion and fire rate by pass', svg };
}

/** Cluster tightness intra vs inter for each fingerprint version present; null unless v2 was measured (a comparison needs it). */
function tightnessChart(m: ProtocolMetrics): ReportChart | null {
  const { v1, v2 } = m.cluster_tightness;
  if (!v2) return null;
  const versions = [...(v1 ? [['v1', v1] as const] : []), ['v2', v2] as const];
  const value = (x: number | null) => (x === null ? '-' : x);
  const bar = (name: string, values: (number | '-')[]): BarSeriesOption => ({
    type: 'bar',
    name,
    data: values,
    label: { show: true, position: 'top', fontSize: 10, formatter: (p) => Number(p.value).toFixed(3) },
  });
  const svg = renderSvg(
    {
      legend: { top: 0 },
      grid: { left: 8, right: 8, top: 36, bottom: 8, outerBoundsMode: 'same', outerBoundsContain: 'all' },
      xAxis: { type: 'category', data: versions.map(([v, t]) => `${v} (${t.fingerprints} fingerprints)`) },
      yAxis: { type: 'value', min: 0, max: 1, name: 'mean similarity' },
      series: [bar('intra (same workload)', versions.map(([, t]) => value(t.intra))), bar('inter (different workloads)', versions.map(([, t]) => value(t.inter)))],
    },
    300,
  );
  return { id: 'cluster-tightness', section: 'a3', title: 'Cluster tightness: v1 vs v2', svg };
}

/** The report's detail charts as inline SVG: cost per workload always; slot 4 by pass and cluster tightness with A3 metrics. */
export function renderReportCharts(report: BenchReport): ReportChart[] {
  const charts = workloadCharts(report);
  const m = report.protocol_metrics;
  if (m) {
    charts.push(slot4Chart(m));
    const t = tightnessChart(m);
    if (t) charts.push(t);
  }
  return charts;
}
