// openai:<model> via the installed SDK's embeddings.create (§16.2). The key is passed in, never read from env here.
import type OpenAI from 'openai';
import { EmbeddingProviderError, l2Normalize, reportedTokens, type EmbeddingProvider, type EmbedResult } from './embedding-provider.ts';

/** Options of `createOpenAIEmbeddingProvider`. */
export interface OpenAIEmbeddingOptions {
  apiKey: string;
  model?: string;
  dimensions?: number;
  baseURL?: string;
  fetch?: typeof fetch;
}

/** An OpenAI embeddings provider (default text-embedding-3-small, 1536 dims unless `dimensions`). */
export function createOpenAIEmbeddingProvider(o: OpenAIEmbeddingOptions): EmbeddingProvider {
  const model = o.model ?? 'text-embedding-3-small';
  const id = `openai:${model}`;
  // The SDK loads on the first embedding, so opening a v2 store to read it (analyze) does not pay for it.
  let client: OpenAI | null = null;
  const embedWithUsage = async (texts: string[]): Promise<EmbedResult> => {
    client ??= new (await import('openai')).default({ apiKey: o.apiKey, baseURL: o.baseURL, fetch: o.fetch, maxRetries: 0 });
    try {
      const res = await client.embeddings.create({ model, input: texts, encoding_format: 'float', ...(o.dimensions ? { dimensions: o.dimensions } : {}) });
      const vectors = [...res.data].sort((a, b) => a.index - b.index).map((d) => l2Normalize(Float32Array.from(d.embedding)));
      // Embeddings bill input only, so prompt_tokens and total_tokens agree; either will do.
      const usage = res.usage as { prompt_tokens?: unknown; total_tokens?: unknown } | undefined;
      return { vectors, input_tokens: reportedTokens(usage?.prompt_tokens) ?? reportedTokens(usage?.total_tokens) };
    } catch (err) {
      const status = (err as { status?: unknown }).status;
      // The SDK's message can echo a partial key; say only what a user needs.
      throw new EmbeddingProviderError(id, `embeddings request failed${typeof status === 'number' ? ` (HTTP ${status})` : ''}`);
    }
  };
  return {
    provider_id: id,
    dim: o.dimensions ?? 1536,
    max_input_tokens: 8_191,
    embed: async (texts) => (await embedWithUsage(texts)).vectors,
    embedWithUsage,
    close: () => Promise.resolve(),
  };
}
