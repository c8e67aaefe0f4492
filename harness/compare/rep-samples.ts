import { Decimal } from 'decimal.js';
import type { BenchReport } from '../../schemas/types/report.ts';
import { savingsPctOf, slot4Fired } from '../metrics/index.ts';

// One sample per seed pass (rep index): the unit the bootstrap resamples (spec §8.4).

/** What one seed pass contributed to quality and savings, summed over its workload runs. */
export interface RepTotals {
  rep: number;
  scoreSum: number;
  scored: number;
  actual: Decimal;
  baseline: Decimal;
}

/** What one seed pass contributed to the routed (Pass C) turns. */
export interface RoutedRepTotals {
  rep: number;
  turns: number;
  fired: number;
  inverted: number;
  onStrong: number;
}

/** Per-rep totals over the workload runs of `pass` (every pass when null). */
export function repTotals(report: BenchReport, pass: string | null): RepTotals[] {
  const byRep = new Map<number, RepTotals>();
  for (const w of report.workloads) {
    if (pass !== null && w.pass !== pass) continue;
    for (const r of w.reps) {
      const t = byRep.get(r.rep) ?? { rep: r.rep, scoreSum: 0, scored: 0, actual: new Decimal(0), baseline: new Decimal(0) };
      if (r.score !== null) {
        t.scoreSum += r.score;
        t.scored += 1;
      }
      t.actual = t.actual.plus(r.savings.actual_repriced_usd);
      t.baseline = t.baseline.plus(r.savings.baseline_repriced_usd);
      byRep.set(r.rep, t);
    }
  }
  return [...byRep.values()].sort((a, b) => a.rep - b.rep);
}

/** Per-rep slot-4 counts over the report's routed turns; empty for a report without A3 metrics. */
export function routedRepTotals(report: BenchReport): RoutedRepTotals[] {
  const pm = report.protocol_metrics;
  if (!pm) return [];
  const byRep = new Map<number, RoutedRepTotals>();
  for (const t of pm.routed_turns) {
    const r = byRep.get(t.rep) ?? { rep: t.rep, turns: 0, fired: 0, inverted: 0, onStrong: 0 };
    r.turns += 1;
    if (slot4Fired(t.pattern_verdict)) r.fired += 1;
    if (t.inverted) r.inverted += 1;
    if (t.chosen_model === pm.strong_model) r.onStrong += 1;
    byRep.set(t.rep, r);
  }
  return [...byRep.values()].sort((a, b) => a.rep - b.rep);
}

/** Mean score over the scored runs of the samples; null when none was scored. */
export function meanScore(xs: readonly RepTotals[]): number | null {
  const n = xs.reduce((s, x) => s + x.scored, 0);
  return n === 0 ? null : xs.reduce((s, x) => s + x.scoreSum, 0) / n;
}

/** savings_pct of the summed costs, (baseline − actual) / baseline × 100; null when the baseline is zero. */
export function savingsPct(xs: readonly RepTotals[]): number | null {
  return savingsPctOf(Decimal.sum(0, ...xs.map((x) => x.baseline)), Decimal.sum(0, ...xs.map((x) => x.actual)))?.toNumber() ?? null;
}

/** Total actual (re-priced) cost of the samples in USD. */
export function actualCost(xs: readonly RepTotals[]): number {
  return Decimal.sum(0, ...xs.map((x) => x.actual)).toNumber();
}

/** A share of routed turns, null when the samples hold none. */
export function routedShare(count: (x: RoutedRepTotals) => number): (xs: readonly RoutedRepTotals[]) => number | null {
  return (xs) => {
    const n = xs.reduce((s, x) => s + x.turns, 0);
    return n === 0 ? null : xs.reduce((s, x) => s + count(x), 0) / n;
  };
}
