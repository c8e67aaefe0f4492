// cohere:<model> via plain fetch to the Cohere v2 embed API (§16.2).
import { EmbeddingProviderError, l2Normalize, reportedTokens, type EmbeddingProvider, type EmbedResult } from './embedding-provider.ts';

/** Options of `createCohereEmbeddingProvider`. */
export interface CohereEmbeddingOptions {
  apiKey: string;
  model?: string;
  baseURL?: string;
  fetch?: typeof fetch;
}

/** A Cohere embed provider (default embed-multilingual-v3.0, 1024 dims, input_type search_document). */
export function createCohereEmbeddingProvider(o: CohereEmbeddingOptions): EmbeddingProvider {
  const model = o.model ?? 'embed-multilingual-v3.0';
  const id = `cohere:${model}`;
  const doFetch = o.fetch ?? fetch;
  const base = (o.baseURL ?? 'https://api.cohere.com').replace(/\/$/, '');
  const embedWithUsage = async (texts: string[]): Promise<EmbedResult> => {
    let res: Response;
    try {
      res = await doFetch(`${base}/v2/embed`, {
        method: 'POST',
        headers: { authorization: `Bearer ${o.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model, texts, input_type: 'search_document', embedding_types: ['float'] }),
      });
    } catch (err) {
      throw new EmbeddingProviderError(id, `embed request failed: ${(err as Error).message}`);
    }
    if (!res.ok) throw new EmbeddingProviderError(id, `embed request failed (HTTP ${res.status})`);
    const body = (await res.json()) as { embeddings?: { float?: number[][] } | number[][]; meta?: { billed_units?: { input_tokens?: unknown } } };
    const rows = Array.isArray(body.embeddings) ? body.embeddings : body.embeddings?.float;
    if (!rows || rows.length !== texts.length) throw new EmbeddingProviderError(id, 'embed response has no float embeddings');
    return { vectors: rows.map((r) => l2Normalize(Float32Array.from(r))), input_tokens: reportedTokens(body.meta?.billed_units?.input_tokens) };
  };
  return {
    provider_id: id,
    dim: 1024,
    max_input_tokens: 512,
    embed: async (texts) => (await embedWithUsage(texts)).vectors,
    embedWithUsage,
    close: () => Promise.resolve(),
  };
}
