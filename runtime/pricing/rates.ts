import type { Decimal } from 'decimal.js';

/** USD per million tokens for one model (harness-and-runtime.md §6). */
export interface ModelRates {
  input: Decimal;
  output: Decimal;
  cache_read: Decimal;
  cache_write: Decimal;
}

/** A versioned price table; `rates` is undefined for a model it does not price. */
export interface PriceTable {
  version: string;
  rates(model: string): ModelRates | undefined;
  models(): string[];
  /** USD per million input tokens of a paid embedder (`embedding_models`); undefined when unpriced. */
  embeddingRate?(embedder: string): Decimal | undefined;
  /** The file it was loaded from, for messages that send the reader there. */
  path?: string;
}
