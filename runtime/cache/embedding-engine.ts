// EmbeddingEngine (semantic-cache-phase2.md §2) over the v2 embedding providers: empty-text refusal,
// batching, dimension checks and a bounded memo so a repeated query is embedded once. It also prices what
// it embeds: a paid embedder's billed input tokens at the price table's rate (memo hits cost nothing).
import { Decimal } from 'decimal.js';
import { EmbeddingProviderError, l2Normalize, type EmbeddingProvider, type EmbedResult } from '../patterns/embeddings/embedding-provider.ts';
import type { PriceTable } from '../pricing/rates.ts';
import { embeddingCost, embeddingRateFor } from './embedding-price.ts';

export class EmbeddingDimensionError extends Error {
  constructor(provider: string, expected: number, actual: number) {
    super(`${provider} returned a ${actual}-dim vector, expected ${expected}`);
    this.name = 'EmbeddingDimensionError';
  }
}

export interface EmbeddingEngineOptions {
  batchSize: number;
  /** Texts remembered with their vectors (default 4096; 0 disables). */
  memoSize: number;
  /** Where a paid embedder's rate comes from; without one only free (local:, test:) embedders are accepted. */
  prices?: PriceTable;
}

/** Vectors of one `embedTextsCosted` call and what it cost. */
export interface CostedEmbeddings {
  vectors: Float32Array[];
  /** Input tokens the API billed for this call (0 when every text was remembered, or the embedder is local). */
  inputTokens: number;
  costUsd: Decimal;
}

export class EmbeddingEngine {
  private readonly memo = new Map<string, Float32Array>();
  private readonly options: EmbeddingEngineOptions;
  /** USD per million input tokens; 0 for a local embedder. */
  readonly ratePerMillion: Decimal;
  private spent = new Decimal(0);

  /** Throws UnpricedEmbedderError for a paid embedder `options.prices` does not price. */
  constructor(
    readonly provider: EmbeddingProvider,
    options: Partial<EmbeddingEngineOptions> = {},
  ) {
    this.options = { batchSize: 96, memoSize: 4096, ...options };
    if (!Number.isInteger(this.options.batchSize) || this.options.batchSize < 1) throw new RangeError(`batchSize must be a whole number >= 1`);
    this.ratePerMillion = embeddingRateFor(provider.provider_id, options.prices);
  }

  /** What every embed of this engine has cost so far, USD. */
  totalCostUsd(): Decimal {
    return this.spent;
  }

  get providerId(): string {
    return this.provider.provider_id;
  }

  dimension(): number {
    return this.provider.dim;
  }

  async embedText(text: string): Promise<Float32Array> {
    return (await this.embedTexts([text]))[0]!;
  }

  /** One text's vector and what embedding it cost. */
  async embedTextCosted(text: string): Promise<{ vector: Float32Array; inputTokens: number; costUsd: Decimal }> {
    const r = await this.embedTextsCosted([text]);
    return { vector: r.vectors[0]!, inputTokens: r.inputTokens, costUsd: r.costUsd };
  }

  /** Embeds in input order; throws on an empty text or a vector of the wrong size. */
  async embedTexts(texts: readonly string[]): Promise<Float32Array[]> {
    return (await this.embedTextsCosted(texts)).vectors;
  }

  /** `embedTexts` with the tokens billed and their cost; a paid embedder that reports no tokens is an error, not $0. */
  async embedTextsCosted(texts: readonly string[]): Promise<CostedEmbeddings> {
    if (texts.some((t) => !t.trim())) throw new EmbeddingProviderError(this.providerId, 'Text must not be empty');
    const out: (Float32Array | undefined)[] = texts.map((t) => this.memo.get(t));
    const todo = texts.map((t, i) => [t, i] as const).filter(([, i]) => out[i] === undefined);
    let tokens = 0;
    for (let s = 0; s < todo.length; s += this.options.batchSize) {
      const chunk = todo.slice(s, s + this.options.batchSize);
      const { vectors: vecs, input_tokens } = await this.call(chunk.map(([t]) => t));
      tokens += input_tokens;
      if (vecs.length !== chunk.length) throw new EmbeddingProviderError(this.providerId, `returned ${vecs.length} vectors for ${chunk.length} texts`);
      vecs.forEach((v, j) => {
        if (v.length !== this.provider.dim) throw new EmbeddingDimensionError(this.providerId, this.provider.dim, v.length);
        const unit = l2Normalize(Float32Array.from(v));
        out[chunk[j]![1]] = unit;
        this.remember(chunk[j]![0], unit);
      });
    }
    const costUsd = embeddingCost(tokens, this.ratePerMillion);
    this.spent = this.spent.plus(costUsd);
    return { vectors: out as Float32Array[], inputTokens: tokens, costUsd };
  }

  private async call(texts: string[]): Promise<{ vectors: Float32Array[]; input_tokens: number }> {
    if (this.ratePerMillion.isZero()) {
      const r: EmbedResult = this.provider.embedWithUsage ? await this.provider.embedWithUsage(texts) : { vectors: await this.provider.embed(texts), input_tokens: 0 };
      return { vectors: r.vectors, input_tokens: r.input_tokens ?? 0 };
    }
    const r = this.provider.embedWithUsage ? await this.provider.embedWithUsage(texts) : null;
    if (!r || r.input_tokens === null) throw new EmbeddingProviderError(this.providerId, 'reported no input token usage, so its price cannot be charged');
    return { vectors: r.vectors, input_tokens: r.input_tokens };
  }

  private remember(text: string, v: Float32Array): void {
    if (this.options.memoSize === 0) return;
    if (this.memo.size >= this.options.memoSize) this.memo.delete(this.memo.keys().next().value!);
    this.memo.set(text, v);
  }
}
