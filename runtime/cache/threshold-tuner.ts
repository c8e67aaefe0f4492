// AdaptiveThresholdTuner: the spec's per-task-type thresholds (semantic-cache-phase2.md §5.4) are the
// prior floor; above it, a would-be hit is served only when a one-sided upper confidence bound on the
// error rate of past would-be hits at this similarity or higher is at most delta, and only above the
// similarity at which this entry was last seen to be wrong. The idea follows vCache (arXiv 2502.03771):
// learn from recomputed would-be hits, serve under an error bound. The code and the estimator are ours.
import { SimilarityLedger } from './similarity-ledger.ts';
import { wilsonUpper, Z95_ONE_SIDED } from './wilson.ts';

export type CostSensitivity = 'high' | 'medium' | 'low';
export const TASK_TYPES = ['faq', 'summarization', 'reasoning', 'coding', 'legal', 'translation', 'classification', 'general'] as const;
export type TaskType = (typeof TASK_TYPES)[number];

/** §5.4: [high, medium, low] cost sensitivity. `general` is the spec's `default` row. */
export const DEFAULT_PRIOR_THRESHOLDS: Readonly<Record<string, readonly [number, number, number]>> = Object.freeze({
  faq: [0.7, 0.8, 0.9],
  summarization: [0.8, 0.85, 0.92],
  reasoning: [0.85, 0.9, 0.95],
  coding: [0.9, 0.93, 0.97],
  legal: [0.88, 0.92, 0.96],
  general: [0.8, 0.85, 0.92],
});

const SENSITIVITY_INDEX: Record<CostSensitivity, number> = { high: 0, medium: 1, low: 2 };

export interface ThresholdTunerConfig {
  /** Largest tolerated wrong-hit rate; the bound must stay at or below it (default 0.01). 1 switches the bound off: a fixed threshold at the prior. */
  delta: number;
  /** Fraction of allowed hits recomputed anyway, to keep learning (default 0.02). */
  exploreRate: number;
  /** Normal quantile of the one-sided bound (default 1.645: 95%). */
  z: number;
  /**
   * Added to every prior threshold. The §5.4 table was written for large API embedders; a weaker local
   * embedder puts true paraphrases lower on the cosine scale (default 0).
   */
  priorOffset: number;
  priors: Record<string, readonly [number, number, number]>;
}

export const DEFAULT_TUNER_CONFIG: ThresholdTunerConfig = {
  delta: 0.01,
  exploreRate: 0.02,
  z: Z95_ONE_SIDED,
  priorOffset: 0,
  priors: { ...DEFAULT_PRIOR_THRESHOLDS },
};

/** What the tuner learned about one cached entry. */
export interface EntryThresholdState {
  /** The highest similarity at which this entry was judged wrong for a query; -1 when never. */
  wrongAbove: number;
  /** Would-be hits on this entry that were recomputed and labelled. */
  observations: number;
}

export function newEntryThresholdState(): EntryThresholdState {
  return { wrongAbove: -1, observations: 0 };
}

/** serve: answer from the cache; explore: recompute and label; reject: a plain miss. */
export type ThresholdAction = 'serve' | 'explore' | 'reject';

export interface ThresholdDecision {
  action: ThresholdAction;
  /** The prior floor used for this task type and sensitivity. */
  floor: number;
  /** Upper bound on the error rate of would-be hits at this similarity or above; 1 with no evidence. */
  errorBound: number;
  reason: 'below_prior' | 'below_entry_threshold' | 'bound_above_delta' | 'bound_met' | 'sampled_exploration';
  /** The similarity a candidate had to reach to be served: the prior floor when fixed (delta 1), else the certified threshold (null while none is certified). */
  threshold: number | null;
}

/** Per task type: learned ledgers; per entry: the wrong-above threshold. */
export class AdaptiveThresholdTuner {
  readonly config: ThresholdTunerConfig;
  private readonly ledgers: Map<string, SimilarityLedger>;
  /** certifiedThreshold per task type and floor, valid while its ledger's version is unchanged. */
  private readonly certified = new Map<string, { version: number; value: { threshold: number; errorBound: number } | null }>();

  constructor(config: Partial<ThresholdTunerConfig> = {}, shared?: Map<string, SimilarityLedger>) {
    this.ledgers = shared ?? new Map();
    this.config = { ...DEFAULT_TUNER_CONFIG, ...config, priors: { ...DEFAULT_PRIOR_THRESHOLDS, ...(config.priors ?? {}) } };
    const { delta, exploreRate, z } = this.config;
    if (!(delta > 0 && delta <= 1)) throw new RangeError(`delta must be in (0, 1], got ${delta}`);
    if (!(exploreRate >= 0 && exploreRate <= 1)) throw new RangeError(`exploreRate must be in [0, 1], got ${exploreRate}`);
    if (!(z > 0)) throw new RangeError(`z must be > 0, got ${z}`);
  }

  /**
   * A tuner with other settings that reads and writes this one's ledgers. A calibration replay runs
   * through `fork({ exploreRate: 1 })` (every would-be hit above the prior is recomputed and labelled),
   * so the cache that then serves starts from that evidence instead of spending its own queries on it.
   */
  fork(config: Partial<ThresholdTunerConfig>): AdaptiveThresholdTuner {
    return new AdaptiveThresholdTuner({ ...this.config, ...config, priors: { ...this.config.priors, ...(config.priors ?? {}) } }, this.ledgers);
  }

  /** The prior threshold (§5.4 plus the embedder offset); unknown task types use `general`. */
  getThreshold(taskType: string, sensitivity: CostSensitivity = 'medium'): number {
    const row = this.config.priors[taskType] ?? this.config.priors['general']!;
    return Math.min(1, Math.max(-1, row[SENSITIVITY_INDEX[sensitivity]]! + this.config.priorOffset));
  }

  /** Replaces one prior (§5.3 update_threshold). */
  updateThreshold(taskType: string, sensitivity: CostSensitivity, threshold: number): void {
    if (!(threshold >= -1 && threshold <= 1)) throw new RangeError(`threshold must be in [-1, 1], got ${threshold}`);
    const row = [...(this.config.priors[taskType] ?? this.config.priors['general']!)] as [number, number, number];
    row[SENSITIVITY_INDEX[sensitivity]] = threshold;
    this.config.priors[taskType] = row;
  }

  private ledger(taskType: string): SimilarityLedger {
    let l = this.ledgers.get(taskType);
    if (!l) this.ledgers.set(taskType, (l = new SimilarityLedger()));
    return l;
  }

  /** The current error bound at `similarity` for `taskType`. */
  errorBound(taskType: string, similarity: number): number {
    const { trials, errors } = this.ledger(taskType).atOrAbove(similarity);
    return wilsonUpper(errors, trials, this.config.z);
  }

  /** Decides one would-be hit. `draw` is a uniform [0, 1) sample (seeded by the caller). */
  decide(taskType: string, sensitivity: CostSensitivity, similarity: number, entry: EntryThresholdState, draw: number): ThresholdDecision {
    const floor = this.getThreshold(taskType, sensitivity);
    const fixed = this.config.delta >= 1;
    const certified = fixed ? null : this.certifiedThreshold(taskType, floor);
    const threshold = fixed ? floor : (certified?.threshold ?? null);
    if (similarity < floor) return { action: 'reject', floor, errorBound: 1, reason: 'below_prior', threshold };
    if (similarity <= entry.wrongAbove) return { action: 'reject', floor, errorBound: 1, reason: 'below_entry_threshold', threshold };
    if (fixed) return { action: 'serve', floor, errorBound: 1, reason: 'bound_met', threshold };
    if (!certified || similarity < certified.threshold)
      return { action: 'explore', floor, errorBound: this.errorBound(taskType, similarity), reason: 'bound_above_delta', threshold };
    if (draw < this.config.exploreRate) return { action: 'explore', floor, errorBound: certified.errorBound, reason: 'sampled_exploration', threshold };
    return { action: 'serve', floor, errorBound: certified.errorBound, reason: 'bound_met', threshold };
  }

  /**
   * The lowest similarity t (at or above `floor`) such that serving every would-be hit at t or above is
   * certified: the one-sided Wilson bound on the error rate of the labelled would-be hits at >= t is at
   * most delta. A candidate at s >= t belongs to that certified set, so it is served however few labels
   * lie above s itself; reading the bound at the candidate's own similarity instead (the first design)
   * refused the most similar candidates for having few labels above them while serving less similar ones.
   * Only occupied similarities are thresholds: nothing below the lowest label is ever certified. Taking
   * the lowest passing t among nested sets is mildly optimistic (a minimum over correlated tests); the
   * cross-fitted stream report measures the error on queries the ledger never saw. Null when none passes.
   */
  certifiedThreshold(taskType: string, floor: number): { threshold: number; errorBound: number } | null {
    const ledger = this.ledger(taskType);
    const key = `${taskType}\u0000${floor}`;
    const cached = this.certified.get(key);
    if (cached && cached.version === ledger.version) return cached.value;
    const { delta, z } = this.config;
    let value: { threshold: number; errorBound: number } | null = null;
    ledger.scanDown((edge, { trials, errors }) => {
      if (edge < floor) return false;
      const bound = wilsonUpper(errors, trials, z);
      if (bound <= delta) value = { threshold: edge, errorBound: bound };
      return true;
    });
    this.certified.set(key, { version: ledger.version, value });
    return value;
  }

  /** Records the label of a recomputed would-be hit. */
  record(taskType: string, similarity: number, correct: boolean, entry: EntryThresholdState): void {
    this.ledger(taskType).record(similarity, correct);
    entry.observations++;
    if (!correct) entry.wrongAbove = Math.max(entry.wrongAbove, similarity);
  }

  /** Labelled would-be hits per task type (for stats and tests). */
  observations(taskType: string): number {
    return this.ledger(taskType).size;
  }
}
