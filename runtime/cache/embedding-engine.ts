// EmbeddingEngine (semantic-cache-phase2.md §2) over the v2 embedding providers: empty-text refusal,
// batching, dimension checks and a bounded memo so a repeated query is embedded once.
import { EmbeddingProviderError, l2Normalize, type EmbeddingProvider } from '../patterns/embeddings/embedding-provider.ts';

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
}

export class EmbeddingEngine {
  private readonly memo = new Map<string, Float32Array>();
  private readonly options: EmbeddingEngineOptions;

  constructor(
    readonly provider: EmbeddingProvider,
    options: Partial<EmbeddingEngineOptions> = {},
  ) {
    this.options = { batchSize: 96, memoSize: 4096, ...options };
    if (!Number.isInteger(this.options.batchSize) || this.options.batchSize < 1) throw new RangeError(`batchSize must be a whole number >= 1`);
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

  /** Embeds in input order; throws on an empty text or a vector of the wrong size. */
  async embedTexts(texts: readonly string[]): Promise<Float32Array[]> {
    if (texts.some((t) => !t.trim())) throw new EmbeddingProviderError(this.providerId, 'Text must not be empty');
    const out: (Float32Array | undefined)[] = texts.map((t) => this.memo.get(t));
    const todo = texts.map((t, i) => [t, i] as const).filter(([, i]) => out[i] === undefined);
    for (let s = 0; s < todo.length; s += this.options.batchSize) {
      const chunk = todo.slice(s, s + this.options.batchSize);
      const vecs = await this.provider.embed(chunk.map(([t]) => t));
      if (vecs.length !== chunk.length) throw new EmbeddingProviderError(this.providerId, `returned ${vecs.length} vectors for ${chunk.length} texts`);
      vecs.forEach((v, j) => {
        if (v.length !== this.provider.dim) throw new EmbeddingDimensionError(this.providerId, this.provider.dim, v.length);
        const unit = l2Normalize(Float32Array.from(v));
        out[chunk[j]![1]] = unit;
        this.remember(chunk[j]![0], unit);
      });
    }
    return out as Float32Array[];
  }

  private remember(text: string, v: Float32Array): void {
    if (this.options.memoSize === 0) return;
    if (this.memo.size >= this.options.memoSize) this.memo.delete(this.memo.keys().next().value!);
    this.memo.set(text, v);
  }
}
