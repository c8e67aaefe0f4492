import { Decimal } from 'decimal.js';
import type { BenchReport } from '../../schemas/types/report.ts';
import { slot4Fired } from '../metrics/index.ts';

// The units `bench compare` pairs between two reports (spec §8.4, Miller 2024): the same (pass, workload,
// rep) in both, clustered by workload.

/** One unit's values, with the workload it belongs to (its cluster). */
export interface Unit<T> {
  cluster: string;
  value: T;
}

/** What one rep contributed to quality, solved rate and savings. */
export interface RepFacts {
  score: number | null;
  solved: number;
  actual: number;
  baseline: number;
  /** The actual cost as the report's Decimal text, so a sum over units stays exact. */
  actualUsd: string;
}

/** What one routed turn of Pass C did. */
export interface TurnFacts {
  fired: number;
  inverted: number;
  onStrong: number;
}

const key = (...parts: (string | number)[]) => parts.join('\u0000');

/** Every rep of `pass` (every pass when null), keyed by (pass, workload, rep). */
export function passUnits(report: BenchReport, pass: string | null): Map<string, Unit<RepFacts>> {
  const out = new Map<string, Unit<RepFacts>>();
  for (const w of report.workloads) {
    if (pass !== null && w.pass !== pass) continue;
    for (const r of w.reps)
      out.set(key(w.pass, w.workload, r.rep), {
        cluster: w.workload,
        value: { score: r.score, solved: r.solved ? 1 : 0, actual: new Decimal(r.savings.actual_repriced_usd).toNumber(), baseline: new Decimal(r.savings.baseline_repriced_usd).toNumber(), actualUsd: r.savings.actual_repriced_usd },
      });
  }
  return out;
}

/** Each workload's pass@k within `pass` (every pass when null), keyed by (pass, workload). */
export function workloadUnits(report: BenchReport, pass: string | null): Map<string, Unit<number | null>> {
  return new Map(report.workloads.filter((w) => pass === null || w.pass === pass).map((w) => [key(w.pass, w.workload), { cluster: w.workload, value: w.pass_at_k }]));
}

/** Pass C's routed turns, keyed by (workload, rep, turn index, occurrence); empty for a report without A3 metrics. */
export function routedTurnUnits(report: BenchReport): Map<string, Unit<TurnFacts>> {
  const pm = report.protocol_metrics;
  const out = new Map<string, Unit<TurnFacts>>();
  if (!pm) return out;
  // A rep with worker sessions has several turns at each index: the n-th of them, in report order, pairs with the n-th.
  const seen = new Map<string, number>();
  for (const t of pm.routed_turns) {
    const base = key(t.workload, t.rep, t.turn_index);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.set(key(base, n), {
      cluster: t.workload,
      value: { fired: slot4Fired(t.pattern_verdict) ? 1 : 0, inverted: t.inverted ? 1 : 0, onStrong: t.chosen_model === pm.strong_model ? 1 : 0 },
    });
  }
  return out;
}
