import { Decimal } from 'decimal.js';
import type { Usage } from '../types/response.ts';
import type { ModelRates } from './rates.ts';

const PER_MILLION = new Decimal(1_000_000);

/**
 * USD cost of one usage at the given rates (per million tokens), exact:
 * uncached input at `input`, cache reads at `cache_read`, cache writes at `cache_write`, output at `output`.
 */
export function costOf(usage: Usage, rates: ModelRates): Decimal {
  return rates.input
    .times(usage.input_tokens)
    .plus(rates.cache_read.times(usage.cached_input_tokens))
    .plus(rates.cache_write.times(usage.cache_creation_input_tokens))
    .plus(rates.output.times(usage.output_tokens))
    .dividedBy(PER_MILLION);
}
