// MismatchCostCalculator (semantic-cache-phase2.md §4): is reusing an answer at similarity s cheaper than
// recomputing it, once a wrong answer's cost is weighed by the task's sensitivity?

export const DEFAULT_TASK_WEIGHTS: Readonly<Record<string, number>> = Object.freeze({ faq: 1.0, summarization: 1.5, reasoning: 2.5, coding: 3.0, legal: 4.0 });

export interface MismatchConfig {
  quality_penalty_weight: number;
  task_weights: Record<string, number>;
  /** Weight of a task type not in the table (default 2.0, between summarisation and reasoning). */
  default_task_weight: number;
}

export const DEFAULT_MISMATCH_CONFIG: MismatchConfig = { quality_penalty_weight: 2.0, task_weights: { ...DEFAULT_TASK_WEIGHTS }, default_task_weight: 2.0 };

export class MismatchCostCalculator {
  readonly config: MismatchConfig;

  constructor(config: Partial<MismatchConfig> = {}) {
    this.config = { ...DEFAULT_MISMATCH_CONFIG, ...config, task_weights: { ...DEFAULT_TASK_WEIGHTS, ...(config.task_weights ?? {}) } };
    if (!(this.config.quality_penalty_weight >= 0)) throw new RangeError('quality_penalty_weight must be >= 0');
  }

  taskWeight(taskType: string): number {
    return this.config.task_weights[taskType] ?? this.config.default_task_weight;
  }

  /** (1 − similarity) × penalty weight × task weight × model cost. */
  mismatchCost(similarity: number, taskType: string, modelCost: number): number {
    if (!(similarity >= -1 && similarity <= 1)) throw new RangeError(`similarity must be in [-1, 1], got ${similarity}`);
    if (!(modelCost >= 0)) throw new RangeError(`model cost must be >= 0, got ${modelCost}`);
    return (1 - similarity) * this.config.quality_penalty_weight * this.taskWeight(taskType) * modelCost;
  }

  /** [use the cache?, why]: yes when the mismatch cost is below the recompute cost. */
  shouldUseCache(similarity: number, taskType: string, recomputeCost: number): [boolean, string] {
    const mc = this.mismatchCost(similarity, taskType, recomputeCost);
    return mc < recomputeCost ? [true, `Mismatch cost $${mc} < recompute cost $${recomputeCost}`] : [false, 'Recomputing: mismatch risk too high'];
  }
}
