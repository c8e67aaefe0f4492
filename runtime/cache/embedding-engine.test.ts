import { Decimal } from 'decimal.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createHashingProvider } from '../patterns/embeddings/hashing-provider.ts';
import { loadPriceTable } from '../pricing/price-table.ts';
import { EmbeddingProviderError, type EmbeddingProvider } from '../patterns/embeddings/embedding-provider.ts';
import { EmbeddingDimensionError, EmbeddingEngine } from './embedding-engine.ts';
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

/** A local embedder that records each call's texts and returns whatever `vectorsFor` makes of them. */
function recordingEmbedder(dim: number, vectorsFor?: (texts: string[]) => Float32Array[]) {
  const inner = createHashingProvider(dim);
  const calls: string[][] = [];
  const p: EmbeddingProvider & { calls: string[][] } = {
    provider_id: 'local:recording',
    dim,
    max_input_tokens: inner.max_input_tokens,
    calls,
    async embed(texts) {
      calls.push([...texts]);
      return vectorsFor ? vectorsFor(texts) : inner.embed(texts);
    },
    close: () => Promise.resolve(),
  };
  return p;
}

const norm = (v: Float32Array) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));

describe('EmbeddingEngine (§2.7)', () => {
  it('embeds a single text into a unit vector of the provider dimension', async () => {
    const e = new EmbeddingEngine(createHashingProvider(384));
    const v = await e.embedText('how do I reset my password');
    expect(e.dimension()).toBe(384);
    expect(v).toHaveLength(384);
    expect(norm(v)).toBeCloseTo(1, 6);
    expect(Array.from(v)).toEqual(Array.from((await new EmbeddingEngine(createHashingProvider(384)).embedTexts(['how do I reset my password']))[0]!));
  });

  it('embeds a batch in input order, split into calls of at most batchSize texts', async () => {
    const p = recordingEmbedder(64);
    const e = new EmbeddingEngine(p, { batchSize: 3 });
    const texts = Array.from({ length: 7 }, (_, i) => `question number ${i} about billing`);
    const vs = await e.embedTexts(texts);
    expect(p.calls.map((c) => c.length)).toEqual([3, 3, 1]);
    expect(p.calls.flat()).toEqual(texts);
    const one = new EmbeddingEngine(createHashingProvider(64));
    for (let i = 0; i < texts.length; i++) expect(Array.from(vs[i]!)).toEqual(Array.from(await one.embedText(texts[i]!)));
  });

  it('an empty list embeds nothing and calls nothing', async () => {
    const p = recordingEmbedder(8);
    expect(await new EmbeddingEngine(p).embedTexts([])).toEqual([]);
    expect(p.calls).toEqual([]);
  });

  it.each([[''], ['   '], ['\n\t']])('refuses an empty text %j before calling the embedder, alone or in a batch', async (blank) => {
    const p = recordingEmbedder(8);
    const e = new EmbeddingEngine(p);
    await expect(e.embedText(blank)).rejects.toThrow('Text must not be empty');
    await expect(e.embedTexts(['a real question', blank])).rejects.toThrow(EmbeddingProviderError);
    expect(p.calls).toEqual([]);
  });

  it('refuses a vector of the wrong dimension, naming expected and actual, and remembers nothing', async () => {
    const p = recordingEmbedder(8, (texts) => texts.map(() => new Float32Array(7).fill(1)));
    const e = new EmbeddingEngine(p);
    await expect(e.embedText('what is the refund policy')).rejects.toThrow(EmbeddingDimensionError);
    await expect(e.embedText('what is the refund policy')).rejects.toThrow('local:recording returned a 7-dim vector, expected 8');
    // Not remembered: the second attempt called the embedder again.
    expect(p.calls).toHaveLength(2);
  });

  it('refuses a reply with a different number of vectors than texts', async () => {
    const e = new EmbeddingEngine(recordingEmbedder(4, () => [new Float32Array(4).fill(1)]));
    await expect(e.embedTexts(['first question here', 'second question here'])).rejects.toThrow('returned 1 vectors for 2 texts');
  });

  it('normalises what the embedder returns to unit length', async () => {
    const e = new EmbeddingEngine(recordingEmbedder(3, (texts) => texts.map(() => Float32Array.from([3, 0, 4]))));
    expect(Array.from(await e.embedText('a question'))).toEqual([Math.fround(0.6), 0, Math.fround(0.8)]);
  });

  it('embeds a repeated text once; memoSize 0 embeds it every time', async () => {
    const p = recordingEmbedder(16);
    const e = new EmbeddingEngine(p);
    await e.embedTexts(['alpha question', 'beta question']);
    await e.embedTexts(['beta question', 'gamma question', 'alpha question']);
    expect(p.calls).toEqual([['alpha question', 'beta question'], ['gamma question']]);
    const q = recordingEmbedder(16);
    const off = new EmbeddingEngine(q, { memoSize: 0 });
    await off.embedText('alpha question');
    await off.embedText('alpha question');
    expect(q.calls).toHaveLength(2);
  });

  it('the memo is bounded: past memoSize the oldest text is forgotten', async () => {
    const p = recordingEmbedder(16);
    const e = new EmbeddingEngine(p, { memoSize: 2 });
    for (const t of ['one question', 'two question', 'three question', 'three question', 'two question', 'one question']) await e.embedText(t);
    // 'one' was dropped when 'three' came in; 'two' and 'three' were still held.
    expect(p.calls.flat()).toEqual(['one question', 'two question', 'three question', 'one question']);
  });

  it.each([0, -1, 1.5])('refuses batchSize %s', (batchSize) => {
    expect(() => new EmbeddingEngine(createHashingProvider(8), { batchSize })).toThrow(RangeError);
  });

  it('has no retry of its own: an embedder failure propagates unchanged, and the next call asks again', async () => {
    let fail = true;
    const inner = createHashingProvider(8);
    const p = recordingEmbedder(8, () => {
      throw new Error('ETIMEDOUT');
    });
    const flaky: EmbeddingProvider = { ...p, embed: async (texts) => (fail ? p.embed(texts) : inner.embed(texts)) };
    const e = new EmbeddingEngine(flaky);
    await expect(e.embedText('a question that times out')).rejects.toThrow('ETIMEDOUT');
    fail = false;
    expect(await e.embedText('a question that times out')).toHaveLength(8);
  });
});
