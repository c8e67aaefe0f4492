import type { Setting } from '../../schemas/types/matrix-report.ts';
import { regretAfter } from './online-regret.ts';

/** The online regret a report carries. */
export type OnlineRegret = NonNullable<Setting['regret']>;

const usd = (x: number) => `${x < 0 ? '\u2212' : '+'}$${Math.abs(x).toPrecision(3)}`;
const signed = (x: number, digits: number) => `${x > 0 ? '+' : x < 0 ? '\u2212' : ''}${Math.abs(x).toFixed(digits)}`;

/** One sentence on the curve: where it ends, and the mean regret per task after the calibration window. */
export function regretSummary(r: OnlineRegret): string {
  const end = r.series[r.series.length - 1];
  const after = regretAfter(r.series, r.window);
  const tail = after === null ? '' : `; after the first ${r.window} (the calibration window) about ${signed(after, 1)} pts a task`;
  // With a fallback the curve is the router as it would have routed; say so, or it reads as what ran.
  const fellBack = r.fallback_model ? ` The window showed no gain, so after it ${r.fallback_model} is routed instead (no regret): the curve is what the router would have lost.` : '';
  return end
    ? `Cumulative regret against ${r.best_fixed_model} (best fixed at the target), online at cost_weight ${r.cost_weight}: ${signed(end.regret_tasks, 1)} tasks over ${r.tasks}, extra cost ${usd(Number(end.extra_cost_usd))}${tail}.${fellBack}`
    : 'No online regret curve (no tasks).';
}

/**
 * The curve as text within 80 columns: `height` rows, the cumulative regret (tasks) against the task
 * position, zero drawn as a rule and the end of the calibration window as a column of ':'. A rising
 * curve loses to the best fixed model; a flat one matches it.
 */
export function renderRegretText(r: OnlineRegret, height = 7, plotWidth = 60): string[] {
  const pts = r.series;
  if (pts.length === 0 || r.tasks === 0) return [regretSummary(r)];
  const cols: (number | null)[] = new Array<number | null>(plotWidth).fill(null);
  for (const p of pts) cols[Math.min(plotWidth - 1, Math.floor(((p.task - 1) / r.tasks) * plotWidth))] = p.regret_tasks;
  // Carry the last value into columns no sample landed in, so the curve has no holes on short series.
  let last = 0;
  const ys = cols.map((v) => (last = v ?? last));
  const hi = Math.max(0, ...ys);
  const lo = Math.min(0, ...ys);
  const span = hi - lo || 1;
  const rowOf = (y: number) => Math.round(((hi - y) / span) * (height - 1));
  const zero = rowOf(0);
  const windowCol = Math.min(plotWidth - 1, Math.floor((r.window / r.tasks) * plotWidth));
  const label = (row: number) => {
    const y = hi - (row / (height - 1)) * span;
    // The zero rule is labelled 0, not its row's nominal value (a row spans span / (height − 1)).
    return row === zero ? '0.0'.padStart(8) : row === 0 || row === height - 1 ? signed(y, 1).padStart(8) : ''.padStart(8);
  };
  const lines: string[] = [];
  for (let row = 0; row < height; row++) {
    let line = '';
    for (let x = 0; x < plotWidth; x++) line += rowOf(ys[x]!) === row ? '*' : x === windowCol ? ':' : row === zero ? '-' : ' ';
    lines.push(`${label(row)} |${line}`.trimEnd());
  }
  lines.push(`${''.padStart(8)} +${'task 1'.padEnd(plotWidth - String(r.tasks).length - 5)}task ${r.tasks}`);
  return [regretSummary(r), '  regret (tasks)', ...lines];
}
