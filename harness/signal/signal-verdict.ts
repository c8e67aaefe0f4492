import type { BenchReport } from '../../schemas/types/report.ts';

/** benchmark.md §4.2: a workload is high-signal when the strong arm beats the cheap one by at least this. */
export const HIGH_SIGNAL_GAP = 0.4;

/** The outcome of `bench signal` for one workload. */
export interface SignalResult {
  workload: string;
  cheap_model: string;
  strong_model: string;
  reps: number;
  cheap_scores: number[];
  strong_scores: number[];
  cheap_mean: number | null;
  strong_mean: number | null;
  gap: number | null;
  verdict: 'high' | 'marginal';
  simulated: boolean;
}

const meanOf = (xs: readonly number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null);

/** Reads the two arms of a signal run out of its report and applies the §4.2 gate. */
export function signalVerdict(report: BenchReport, workload: string): SignalResult {
  const scoresOf = (pass: string) =>
    report.workloads
      .filter((w) => w.pass === pass && w.workload === workload)
      .flatMap((w) => w.reps.map((r) => r.score))
      .filter((s): s is number => s !== null);
  const cheap = scoresOf('cheap');
  const strong = scoresOf('strong');
  const cm = meanOf(cheap);
  const sm = meanOf(strong);
  const gap = cm === null || sm === null ? null : sm - cm;
  return {
    workload,
    cheap_model: report.provenance.actual_model,
    strong_model: report.provenance.strong_model ?? report.provenance.baseline_model,
    reps: report.provenance.seed_passes,
    cheap_scores: cheap,
    strong_scores: strong,
    cheap_mean: cm,
    strong_mean: sm,
    gap,
    verdict: gap !== null && gap >= HIGH_SIGNAL_GAP ? 'high' : 'marginal',
    simulated: report.banner !== null,
  };
}
