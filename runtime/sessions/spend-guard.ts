import { Decimal } from 'decimal.js';
import type { ModelRates } from '../pricing/rates.ts';

/** The next call could take spend past the run's bound, so it is not made. */
export class SpendLimitError extends Error {
  constructor(
    readonly spentUsd: Decimal,
    readonly limitUsd: Decimal,
    readonly nextCallEstimateUsd: Decimal,
  ) {
    super(`--max-cost ${limitUsd.toString()}: spent ${spentUsd.toFixed(6)}, the next call could cost up to ~${nextCallEstimateUsd.toFixed(6)}; stopped before passing the bound`);
    this.name = 'SpendLimitError';
  }
}

/** Tracks a run's spend and refuses a call that could take it past the limit. */
export interface SpendGuard {
  /** Throws SpendLimitError when spent + this call's estimate would pass the limit. */
  beforeCall(rates: ModelRates | undefined, estimatedInputTokens: number, maxOutputTokens: number): void;
  afterCall(cost: Decimal): void;
  spent(): Decimal;
}

/**
 * A guard for `--max-cost`. The next call's estimate is pessimistic: all input uncached at the input
 * rate, plus the larger of 1,000 output tokens (capped by max_tokens) and the priciest call so far.
 * Stopping a little early is acceptable; passing the bound is not.
 */
export function createSpendGuard(limitUsd: Decimal | null): SpendGuard {
  let spent = new Decimal(0);
  let priciestCall = new Decimal(0);
  return {
    beforeCall(rates, estimatedInputTokens, maxOutputTokens) {
      if (limitUsd === null || !rates) return;
      const outputGuess = rates.output.times(Math.min(maxOutputTokens, 1000)).div(1_000_000);
      const estimate = rates.input.times(estimatedInputTokens).div(1_000_000).plus(Decimal.max(outputGuess, priciestCall));
      if (spent.plus(estimate).gt(limitUsd)) throw new SpendLimitError(spent, limitUsd, estimate);
    },
    afterCall(cost) {
      spent = spent.plus(cost);
      priciestCall = Decimal.max(priciestCall, cost);
    },
    spent: () => spent,
  };
}
