// A stand-in for a paid remote embedder in tests: the hashing embedder's vectors, billed at a fixed
// number of input tokens per text, and a price table that prices it. No network.
import { createHashingProvider } from '../../patterns/embeddings/hashing-provider.ts';
import type { EmbeddingProvider } from '../../patterns/embeddings/embedding-provider.ts';
import { createPriceTable, loadPriceTable } from '../../pricing/price-table.ts';
import type { PriceTable } from '../../pricing/rates.ts';

export const PAID_EMBEDDER_ID = 'fake:paid-embedder';

/** Counts calls and texts so tests can check that memo hits are not billed. */
export interface PaidEmbedder extends EmbeddingProvider {
  calls: number;
  texts: number;
}

export function createPaidEmbedder(tokensPerText: number, id = PAID_EMBEDDER_ID): PaidEmbedder {
  const inner = createHashingProvider(384);
  const p: PaidEmbedder = {
    provider_id: id,
    dim: inner.dim,
    max_input_tokens: inner.max_input_tokens,
    calls: 0,
    texts: 0,
    embed: (texts) => inner.embed(texts),
    async embedWithUsage(texts) {
      p.calls++;
      p.texts += texts.length;
      return { vectors: await inner.embed(texts), input_tokens: tokensPerText * texts.length };
    },
    close: () => Promise.resolve(),
  };
  return p;
}

/** The shipped table's model rates plus `id` priced at `ratePerMillion` USD per million input tokens. */
export function pricesWithEmbedder(ratePerMillion: string, id = PAID_EMBEDDER_ID): PriceTable {
  const shipped = loadPriceTable();
  const models = Object.fromEntries(
    shipped.models().map((m) => {
      const r = shipped.rates(m)!;
      return [m, { input: r.input.toFixed(), output: r.output.toFixed(), cache_read: r.cache_read.toFixed(), cache_write: r.cache_write.toFixed() }];
    }),
  );
  return createPriceTable({
    version: shipped.version,
    currency: 'USD',
    unit: 'per_million_tokens',
    models,
    embedding_models: { [id]: { input: ratePerMillion, source: 'test stand-in', as_of: '2026-11' } },
  });
}
