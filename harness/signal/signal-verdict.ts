import type { BenchReport } from '../../schemas/types/report.ts';

/** benchmark.md §4.2: a workload is high-signal when the strong arm's mean gated score beats the cheap one's by at least this. */
export const HIGH_SIGNAL_GAP = 0.4;

/** One arm of a signal run: its reps' scores and check verdicts. */
export interface SignalArm {
  model: string;
  /** Per-rep score; a rep the evaluator could not score counts as 0 (it is not solved work). */
  scores: number[];
  /** Reps whose hidden check passed. */
  solved: number;
  /** Mean of `scores`; null when the arm has no rep. */
  mean: number | null;
  /** solved / reps (a fraction); null for a workload without a check or an arm without reps. */
  solved_rate: number | null;
}

/** The outcome of `bench signal` for one workload. */
export interface SignalResult {
  workload: string;
  cheap: SignalArm;
  strong: SignalArm;
  reps: number;
  /** strong.mean − cheap.mean, on the gated score (issue 11: a rep that fails its check scores < 0.5). */
  score_gap: number | null;
  /** strong.solved_rate − cheap.solved_rate, from the check verdicts directly. */
  solved_gap: number | null;
  verdict: 'high' | 'marginal';
  /** The report's provenance.actual_provider: sim, anthropic, replay:sim, ... */
  provider: string;
  simulated: boolean;
  seed: number;
  /** provenance.ended_at: when the measurement finished (UTC). */
  measured_at: string;
}

const meanOf = (xs: readonly number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null);

/**
 * Reads the two arms (passes `cheap` and `strong`) of a signal run out of its report and applies the
 * §4.2 gate to the score gap. `hasCheck` says whether the workload declares `evaluate.check`; with
 * one, a rep is solved iff its check ran and passed (a rep that never reached its check is unsolved).
 */
export function signalVerdict(report: BenchReport, workload: string, hasCheck: boolean): SignalResult {
  const arm = (pass: string, model: string): SignalArm => {
    const reps = report.workloads.filter((w) => w.pass === pass && w.workload === workload).flatMap((w) => w.reps);
    const scores = reps.map((r) => r.score ?? 0);
    const solved = reps.filter((r) => r.check?.passed === true).length;
    return {
      model,
      scores,
      solved,
      mean: meanOf(scores),
      solved_rate: hasCheck && reps.length > 0 ? solved / reps.length : null,
    };
  };
  const p = report.provenance;
  const cheap = arm('cheap', p.actual_model);
  const strong = arm('strong', p.strong_model ?? p.baseline_model);
  const score_gap = cheap.mean === null || strong.mean === null ? null : strong.mean - cheap.mean;
  const solved_gap = cheap.solved_rate === null || strong.solved_rate === null ? null : strong.solved_rate - cheap.solved_rate;
  return {
    workload,
    cheap,
    strong,
    reps: p.seed_passes,
    score_gap,
    solved_gap,
    verdict: score_gap !== null && score_gap >= HIGH_SIGNAL_GAP ? 'high' : 'marginal',
    provider: p.actual_provider,
    simulated: report.banner !== null,
    seed: p.seed,
    measured_at: p.ended_at,
  };
}
