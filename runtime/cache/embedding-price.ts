// What one embedder charges per million input tokens: 0 for an embedder that runs on this machine, the
// price table's `embedding_models` rate for a paid one. A paid embedder without a rate is refused at
// setup, so its cost is never a silent 0.
import { Decimal } from 'decimal.js';
import type { PriceTable } from '../pricing/rates.ts';

/** Embedder ids that run locally (no API, no bill): their cost is 0 by construction. */
const FREE_PREFIXES = ['local:', 'test:'] as const;

export function isFreeEmbedder(providerId: string): boolean {
  return FREE_PREFIXES.some((p) => providerId.startsWith(p));
}

/** A paid embedder the price table does not price. */
export class UnpricedEmbedderError extends Error {
  constructor(
    readonly embedder: string,
    where: string,
  ) {
    super(`embedder ${embedder} is paid but has no price: add it under embedding_models in ${where} (USD per million input tokens, with source and as_of)`);
    this.name = 'UnpricedEmbedderError';
  }
}

/** USD per million input tokens for `providerId`; throws UnpricedEmbedderError for a paid embedder without a rate. */
export function embeddingRateFor(providerId: string, prices: PriceTable | undefined): Decimal {
  if (isFreeEmbedder(providerId)) return new Decimal(0);
  const rate = prices?.embeddingRate?.(providerId);
  if (rate) return rate;
  const where = prices ? `${prices.path ?? 'the price table'} (version ${prices.version})` : 'the price table (none was given)';
  throw new UnpricedEmbedderError(providerId, where);
}

/** Exact cost of `tokens` input tokens at `ratePerMillion` USD. */
export function embeddingCost(tokens: number, ratePerMillion: Decimal): Decimal {
  return ratePerMillion.times(tokens).dividedBy(1_000_000);
}
