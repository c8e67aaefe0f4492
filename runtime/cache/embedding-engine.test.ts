import { Decimal } from 'decimal.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createHashingProvider } from '../patterns/embeddings/hashing-provider.ts';
import { loadPriceTable } from '../pricing/price-table.ts';
import { EmbeddingEngine } from './embedding-engine.ts';
import { embeddingCost, UnpricedEmbedderError } from './embedding-price.ts';
import { createPaidEmbedder, pricesWithEmbedder } from './test-support/paid-embedder.ts';

describe('EmbeddingEngine prices what it embeds', () => {
  it('a local embedder costs 0 and needs no price table', async () => {
    const e = new EmbeddingEngine(createHashingProvider(384));
    const r = await e.embedTextsCosted(['what is the refund policy', 'how do I reset my password']);
    expect(r.vectors).toHaveLength(2);
    expect([r.inputTokens, r.costUsd.toFixed()]).toEqual([0, '0']);
    expect(e.totalCostUsd().toFixed()).toBe('0');
  });

  it('a paid embedder is charged its billed tokens at the table rate; a remembered text costs nothing', async () => {
    const p = createPaidEmbedder(12);
    const e = new EmbeddingEngine(p, { prices: pricesWithEmbedder('0.02') });
    const first = await e.embedTextsCosted(['alpha question', 'beta question']);
    // 24 tokens at $0.02 per million.
    expect([first.inputTokens, first.costUsd.toFixed()]).toEqual([24, '0.00000048']);
    const again = await e.embedTextCosted('alpha question');
    expect([again.inputTokens, again.costUsd.toFixed(), p.texts]).toEqual([0, '0', 2]);
    const mixed = await e.embedTextsCosted(['alpha question', 'gamma question']);
    expect([mixed.inputTokens, mixed.costUsd.toFixed(), p.texts]).toEqual([12, '0.00000024', 3]);
    expect(e.totalCostUsd().toFixed()).toBe('0.00000072');
  });

  it('the shipped table prices the OpenAI and Cohere embedders named in the brief', () => {
    const t = loadPriceTable();
    expect(['openai:text-embedding-3-small', 'openai:text-embedding-3-large', 'cohere:embed-english-v3.0'].map((m) => t.embeddingRate!(m)?.toFixed())).toEqual(['0.02', '0.13', '0.1']);
    expect(new EmbeddingEngine(createPaidEmbedder(1, 'openai:text-embedding-3-small'), { prices: t }).ratePerMillion.toFixed()).toBe('0.02');
  });

  it('a paid embedder without a price is refused at setup, naming the embedder and the price file', () => {
    const t = loadPriceTable();
    const make = () => new EmbeddingEngine(createPaidEmbedder(1, 'openai:text-embedding-9-huge'), { prices: t });
    expect(make).toThrow(UnpricedEmbedderError);
    expect(make).toThrow(/openai:text-embedding-9-huge.*embedding_models in .*runtime\/data\/prices\.json/);
    expect(() => new EmbeddingEngine(createPaidEmbedder(1))).toThrow(/fake:paid-embedder is paid but has no price/);
  });

  it('a paid embedder whose API reports no tokens is an error, never a silent $0', async () => {
    const p = createPaidEmbedder(3);
    const silent = { ...p, embedWithUsage: async (texts: string[]) => ({ vectors: await p.embed(texts), input_tokens: null }) };
    const e = new EmbeddingEngine(silent, { prices: pricesWithEmbedder('0.1') });
    await expect(e.embedText('a question')).rejects.toThrow(/reported no input token usage/);
  });

  it('cost is linear in tokens and exact (Decimal)', () => {
    fc.assert(
      fc.property(fc.nat(10_000_000), fc.nat(10_000_000), fc.integer({ min: 0, max: 1000 }), (a, b, cents) => {
        const rate = new Decimal(cents).dividedBy(100);
        expect(embeddingCost(a + b, rate).equals(embeddingCost(a, rate).plus(embeddingCost(b, rate)))).toBe(true);
        expect(embeddingCost(1_000_000, rate).equals(rate)).toBe(true);
      }),
    );
  });
});
