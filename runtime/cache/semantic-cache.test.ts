import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createHashingProvider } from '../patterns/embeddings/hashing-provider.ts';
import type { Message } from '../types/content.ts';
import type { CanonicalRequest } from '../types/request.ts';
import type { CanonicalResponse } from '../types/response.ts';
import type { CacheEventType } from './cache-events.ts';
import { EmbeddingEngine } from './embedding-engine.ts';
import { createPaidEmbedder, pricesWithEmbedder } from './test-support/paid-embedder.ts';
import { SemanticCache, TENANT_METADATA_KEY, type SemanticCacheOptions } from './semantic-cache.ts';
import { CacheStore } from './cache-store.ts';
import { MismatchCostCalculator } from './mismatch-cost.ts';
import { cosineSimilarity } from './similarity-calculator.ts';
import { AdaptiveThresholdTuner } from './threshold-tuner.ts';

const user = (text: string): Message => ({ role: 'user', content: [{ type: 'text', text }] });
const req = (text: string, extra: Partial<CanonicalRequest> = {}): CanonicalRequest => ({
  model: 'anthropic:claude-haiku-4-5',
  system: 'You are helpful.',
  system_volatile: null,
  tools: [],
  messages: [user(text)],
  temperature: 0,
  max_tokens: 256,
  ...extra,
});
const answer = (text: string, stop: CanonicalResponse['stop_reason'] = 'end_turn'): CanonicalResponse => ({
  model: 'anthropic:claude-haiku-4-5',
  content: [{ type: 'text', text }],
  stop_reason: stop,
  usage: { input_tokens: 100, output_tokens: 20, cached_input_tokens: 0, cache_creation_input_tokens: 0 },
  latency_ms: 300,
  request_id: 'r',
});

function makeCache(extra: Partial<SemanticCacheOptions> = {}) {
  const events: [CacheEventType, Record<string, unknown>][] = [];
  const cache = new SemanticCache({
    scope: { tenant: 't', workspace: 'w' },
    embeddings: new EmbeddingEngine(createHashingProvider(384)),
    costOf: () => '0.001',
    onEvent: (type, payload) => events.push([type, payload]),
    ...extra,
  });
  return { cache, events };
}

describe('SemanticCache', () => {
  it('serves an exact repeat from Tier 1 at zero usage and says so in an event', async () => {
    const { cache, events } = makeCache();
    let calls = 0;
    const compute = () => Promise.resolve((calls++, answer('Paris.')));
    const first = await cache.complete(req('What is the capital of France?'), compute);
    expect(first.servedBy).toBeNull();
    const second = await cache.complete(req('What is the capital of France?'), compute);
    expect(second.servedBy).toBe('exact');
    expect(second.response.content).toEqual([{ type: 'text', text: 'Paris.' }]);
    expect(second.response.usage).toEqual({ input_tokens: 0, output_tokens: 0, cached_input_tokens: 0, cache_creation_input_tokens: 0 });
    expect(calls).toBe(1);
    expect(events.map(([t]) => t)).toEqual(['cache.miss', 'cache.set', 'cache.set', 'cache.hit']);
    expect(events[3]![1]).toMatchObject({ tier: 'exact', avoided_cost_usd: '0.001', served_cost_usd: '0' });
  });

  it('never crosses tenants', async () => {
    const { cache } = makeCache();
    const compute = () => Promise.resolve(answer('Pro plan.'));
    await cache.complete(req('What plan am I on right here?', { metadata: { [TENANT_METADATA_KEY]: 'alice' } }), compute);
    const bob = await cache.complete(req('What plan am I on right here?', { metadata: { [TENANT_METADATA_KEY]: 'bob' } }), compute);
    expect(bob.servedBy).toBeNull();
  });

  it('never serves nor keeps a tool call, and never serves a tool-result continuation', async () => {
    const { cache } = makeCache();
    const toolUse: CanonicalResponse = { ...answer(''), content: [{ type: 'tool_use', id: 'tu_1', name: 'read_file', input: {} }], stop_reason: 'tool_use' };
    await cache.complete(req('Read the README file and summarize it.'), () => Promise.resolve(toolUse));
    const again = await cache.complete(req('Read the README file and summarize it.'), () => Promise.resolve(answer('ok')));
    expect(again.servedBy).toBeNull();
    const cont: CanonicalRequest = {
      ...req('x'),
      messages: [
        user('Run the tests and report the failures.'),
        { role: 'assistant', content: [{ type: 'tool_use', id: 'tu_1', name: 'run_shell', input: {} }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'tu_1', content: '1 failed', is_error: false }] },
      ],
    };
    await cache.complete(cont, () => Promise.resolve(answer('One test fails.')));
    const contAgain = await cache.complete(cont, () => Promise.resolve(answer('Still one.')));
    expect(contAgain.servedBy).toBeNull();
    expect(contAgain.missReason).toBe('semantic_tool_result_continuation');
  });

  it('does not serve a paraphrase without evidence; explores it and learns the label', async () => {
    const tuner = new AdaptiveThresholdTuner({ priorOffset: -0.5 });
    const { cache } = makeCache({ tuner });
    await cache.complete(req('How do I grow tomatoes on a small balcony?'), () => Promise.resolve(answer('Use sorted().')));
    const out = await cache.complete(req('How can I grow tomatoes on a small balcony garden?'), () => Promise.resolve(answer('Use sorted().')));
    expect(out.servedBy).toBeNull();
    expect(out.explored).toBe(true);
    expect(out.exploreAgreed).toBe(true);
    expect(out.taskType).toBe('general');
    expect(tuner.observations('general')).toBe(1);
  });

  it('serves a paraphrase once the bound is met, and the gate still refuses a swapped number', async () => {
    const tuner = new AdaptiveThresholdTuner({ priorOffset: -0.5, delta: 0.05, exploreRate: 0 });
    // Agreeing labels spread over 0.5-1.0: they certify serving at >= 0.5 (labels only at 1.0 would certify only 1.0).
    for (let i = 0; i < 80; i++) tuner.record('general', 0.5 + i / 160, true, { wrongAbove: -1, observations: 0 });
    const { cache } = makeCache({ tuner });
    await cache.complete(req('How do I grow 10 tomato plants on a small balcony?'), () => Promise.resolve(answer('Use sorted().')));
    const hit = await cache.complete(req('How can I grow 10 tomato plants on a small balcony garden?'), () => Promise.reject(new Error('must not compute')));
    expect(hit.servedBy).toBe('semantic');
    const swapped = await cache.complete(req('How can I grow 20 tomato plants on a small balcony garden?'), () => Promise.resolve(answer('Use sorted() too.')));
    expect(swapped.servedBy).toBeNull();
    expect(swapped.missReason).toBe('gate_numbers');
  });

  it('keeps at most maxEntries per tier, evicting and reporting it', async () => {
    const { cache, events } = makeCache({ maxEntries: 3, tiers: { exact: true, semantic: false } });
    for (let i = 0; i < 5; i++) await cache.complete(req(`Tell me fact number ${i} about owls.`), () => Promise.resolve(answer(`fact ${i}`)));
    expect(cache.size().exact).toBe(3);
    expect(events.filter(([t]) => t === 'cache.evicted')).toHaveLength(2);
    const first = await cache.complete(req('Tell me fact number 0 about owls.'), () => Promise.resolve(answer('fact 0')));
    expect(first.servedBy).toBeNull();
    const last = await cache.complete(req('Tell me fact number 4 about owls.'), () => Promise.reject(new Error('evicted')));
    expect(last.servedBy).toBe('exact');
  });

  it('separates the same last message in different conversations', async () => {
    const { cache } = makeCache({ tuner: new AdaptiveThresholdTuner({ delta: 1, priorOffset: -0.5 }) });
    const conv = (topic: string): CanonicalRequest => ({
      ...req('x'),
      messages: [user(`Tell me about ${topic}.`), { role: 'assistant', content: [{ type: 'text', text: `${topic} is famous.` }] }, user('How tall is it, roughly?')],
    });
    await cache.complete(conv('the Eiffel Tower'), () => Promise.resolve(answer('330 m')));
    const other = await cache.complete(conv('the Statue of Liberty'), () => Promise.resolve(answer('93 m')));
    expect(other.servedBy).toBeNull();
    expect(other.missReason).toBe('no_neighbour');
  });

  it('with a paid embedder a Tier 2 hit is served at its lookup\'s embedding cost; misses say what they embedded; Tier 1 costs nothing', async () => {
    const tuner = new AdaptiveThresholdTuner({ priorOffset: -0.5, delta: 0.05, exploreRate: 0 });
    for (let i = 0; i < 80; i++) tuner.record('general', 0.5 + i / 160, true, { wrongAbove: -1, observations: 0 });
    // 40 tokens per text at $0.10 per million: $0.000004 per embedded query.
    const { cache, events } = makeCache({ tuner, embeddings: new EmbeddingEngine(createPaidEmbedder(40), { prices: pricesWithEmbedder('0.10') }) });
    const first = await cache.complete(req('How do I grow 10 tomato plants on a small balcony?'), () => Promise.resolve(answer('Use pots.')));
    expect([first.servedBy, first.embedCostUsd]).toEqual([null, '0.000004']);
    expect(events.find(([t]) => t === 'cache.miss')![1]).toMatchObject({ tier: 'semantic', embed_cost_usd: '0.000004' });
    const hit = await cache.complete(req('How can I grow 10 tomato plants on a small balcony garden?'), () => Promise.reject(new Error('must not compute')));
    expect(hit.servedBy).toBe('semantic');
    expect(hit.embedCostUsd).toBe('0.000004');
    expect(hit.response.served_from_cache).toMatchObject({ tier: 'semantic', served_cost_usd: '0.000004' });
    expect(events.at(-1)).toEqual(['cache.hit', expect.objectContaining({ tier: 'semantic', served_cost_usd: '0.000004', embed_cost_usd: '0.000004', avoided_cost_usd: '0.001' })]);
    // The exact repeat is answered before anything is embedded.
    const exact = await cache.complete(req('How do I grow 10 tomato plants on a small balcony?'), () => Promise.reject(new Error('must not compute')));
    expect([exact.servedBy, exact.embedCostUsd, exact.response.served_from_cache?.served_cost_usd]).toEqual(['exact', '0', '0']);
  });

  it('a local embedder serves every hit at $0, as before', async () => {
    const tuner = new AdaptiveThresholdTuner({ priorOffset: -0.5, delta: 0.05, exploreRate: 0 });
    for (let i = 0; i < 80; i++) tuner.record('general', 0.5 + i / 160, true, { wrongAbove: -1, observations: 0 });
    const { cache, events } = makeCache({ tuner });
    await cache.complete(req('How do I grow 10 tomato plants on a small balcony?'), () => Promise.resolve(answer('Use pots.')));
    const hit = await cache.complete(req('How can I grow 10 tomato plants on a small balcony garden?'), () => Promise.reject(new Error('must not compute')));
    expect([hit.servedBy, hit.response.served_from_cache?.served_cost_usd, hit.embedCostUsd]).toEqual(['semantic', '0', '0']);
    expect(events.filter(([t]) => t === 'cache.hit' || t === 'cache.miss').map(([, p]) => p.embed_cost_usd)).toEqual(['0', '0']);
  });
});

const ASKED = 'How do I grow tomatoes on a small balcony?';
const PARAPHRASE = 'How can I grow tomatoes on a small balcony garden?';
/** The cosine the cache sees between two queries (same embedder as makeCache). */
async function similarityOf(a: string, b: string): Promise<number> {
  const e = new EmbeddingEngine(createHashingProvider(384));
  const [va, vb] = await e.embedTexts([a, b]);
  return cosineSimilarity(va!, vb!);
}
/** A fixed threshold at `floor` for 'general' queries: the bound off (delta 1), no sampled exploration. */
const fixedAt = async (floor: number) => new AdaptiveThresholdTuner({ delta: 1, exploreRate: 0, priorOffset: floor - 0.85 });
const mustNotCompute = () => Promise.reject(new Error('must not compute'));

describe('SemanticCache (§7.6 cases)', () => {
  it('an empty cache misses with no neighbour, computes once and keeps the answer', async () => {
    const { cache, events } = makeCache();
    let calls = 0;
    const out = await cache.complete(req(ASKED), () => Promise.resolve((calls++, answer('Use pots.'))));
    expect([out.servedBy, out.missReason, out.similarity, calls]).toEqual([null, 'no_neighbour', null, 1]);
    expect(cache.size()).toEqual({ exact: 1, semantic: 1 });
    expect(events[0]).toEqual(['cache.miss', expect.objectContaining({ tier: 'semantic', reason: 'no_neighbour' })]);
  });

  it('serves a neighbour just above the threshold and reports its similarity', async () => {
    const s = await similarityOf(ASKED, PARAPHRASE);
    expect(s).toBeGreaterThan(0.5);
    const { cache } = makeCache({ tuner: await fixedAt(s - 0.01) });
    await cache.complete(req(ASKED), () => Promise.resolve(answer('Use pots.')));
    const hit = await cache.complete(req(PARAPHRASE), mustNotCompute);
    expect(hit.servedBy).toBe('semantic');
    expect(hit.similarity).toBeCloseTo(s, 5);
    expect(hit.candidateQuery).toBe(ASKED);
    expect(hit.response.content).toEqual([{ type: 'text', text: 'Use pots.' }]);
  });

  it('misses a neighbour just below the threshold and computes', async () => {
    const s = await similarityOf(ASKED, PARAPHRASE);
    const { cache } = makeCache({ tuner: await fixedAt(s + 0.01) });
    await cache.complete(req(ASKED), () => Promise.resolve(answer('Use pots.')));
    const miss = await cache.complete(req(PARAPHRASE), () => Promise.resolve(answer('Use big pots.')));
    expect([miss.servedBy, miss.missReason, miss.explored]).toEqual([null, 'below_prior', false]);
    expect(miss.similarity).toBeCloseTo(s, 5);
    expect(miss.response.content).toEqual([{ type: 'text', text: 'Use big pots.' }]);
  });

  it('refuses a hit the threshold allows when its mismatch cost reaches the recompute cost', async () => {
    const s = await similarityOf(ASKED, PARAPHRASE);
    const strict = new MismatchCostCalculator({ quality_penalty_weight: 1000 });
    const { cache, events } = makeCache({ tuner: await fixedAt(s - 0.01), mismatch: strict });
    await cache.complete(req(ASKED), () => Promise.resolve(answer('Use pots.')));
    const out = await cache.complete(req(PARAPHRASE), () => Promise.resolve(answer('Use pots.')));
    expect([out.servedBy, out.missReason]).toEqual([null, 'mismatch_cost']);
    expect(events.filter(([t]) => t === 'cache.miss').at(-1)![1]).toMatchObject({ tier: 'semantic', reason: 'mismatch_cost' });
    // The same cache without the strict calculator serves it: the mismatch cost alone refused.
    const lenient = makeCache({ tuner: await fixedAt(s - 0.01) }).cache;
    await lenient.complete(req(ASKED), () => Promise.resolve(answer('Use pots.')));
    expect((await lenient.complete(req(PARAPHRASE), mustNotCompute)).servedBy).toBe('semantic');
  });

  it('with several candidates of varying similarity, serves the most similar one', async () => {
    const q = 'How can I grow tomatoes on a balcony in pots?';
    const kept = ['How do I grow tomatoes on a small balcony?', 'How do I grow herbs on a windowsill?', 'How do I repot a tomato seedling?'];
    const sims = await Promise.all(kept.map((k) => similarityOf(q, k)));
    const best = sims.indexOf(Math.max(...sims));
    expect(new Set(sims).size).toBe(3);
    // Mismatch penalty 0: every candidate passes §4, so only the order by similarity decides.
    const { cache } = makeCache({ tuner: await fixedAt(Math.min(...sims) - 0.01), mismatch: new MismatchCostCalculator({ quality_penalty_weight: 0 }) });
    for (const [i, k] of kept.entries()) await cache.warm(req(k), () => Promise.resolve(answer(`answer ${i}`)));
    const hit = await cache.complete(req(q), mustNotCompute);
    expect(hit.servedBy).toBe('semantic');
    expect(hit.response.content).toEqual([{ type: 'text', text: `answer ${best}` }]);
    expect(hit.similarity).toBeCloseTo(sims[best]!, 5);
  });

  it('skips the most similar candidate when the exact-token gate refuses it and serves the next', async () => {
    const q = 'How can I grow 10 tomato plants on a small balcony garden?';
    const near = 'How can I grow 12 tomato plants on a small balcony garden?';
    const next = 'How do I grow 10 tomato plants on a small balcony?';
    const [sNear, sNext] = [await similarityOf(q, near), await similarityOf(q, next)];
    expect(sNear).toBeGreaterThan(sNext);
    const { cache } = makeCache({ tuner: await fixedAt(sNext - 0.01) });
    await cache.warm(req(near), () => Promise.resolve(answer('twelve')));
    await cache.warm(req(next), () => Promise.resolve(answer('ten')));
    const hit = await cache.complete(req(q), mustNotCompute);
    expect(hit.response.content).toEqual([{ type: 'text', text: 'ten' }]);
    expect(hit.similarity).toBeCloseTo(sNext, 5);
  });

  it('invalidate forgets a query in both tiers (and in the store), not its neighbours nor other tenants', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'semantic-invalidate-'));
    try {
      const file = join(dir, 'cache.sqlite');
      const store = new CacheStore(file);
      const s = await similarityOf(ASKED, PARAPHRASE);
      const { cache } = makeCache({ tuner: await fixedAt(s - 0.01), store });
      const other = req('Which fertiliser suits potted chillies best?');
      const bob = req(ASKED, { metadata: { [TENANT_METADATA_KEY]: 'bob' } });
      await cache.complete(req(ASKED), () => Promise.resolve(answer('Use pots.')));
      await cache.complete(other, () => Promise.resolve(answer('A tomato feed.')));
      await cache.complete(bob, () => Promise.resolve(answer('Bob: use pots.')));
      expect(cache.size()).toEqual({ exact: 3, semantic: 3 });
      expect(cache.invalidate(req(ASKED))).toBe(2);
      expect(cache.invalidate(req(ASKED))).toBe(0);
      expect(cache.size()).toEqual({ exact: 2, semantic: 2 });
      const again = await cache.complete(req(ASKED), () => Promise.resolve(answer('Use deep pots.')));
      // Its only neighbour left is the other question, which shares no content word with it: the gate refuses it.
      expect([again.servedBy, again.missReason]).toEqual([null, 'gate_content']);
      expect((await cache.complete(other, mustNotCompute)).servedBy).toBe('exact');
      expect((await cache.complete(bob, mustNotCompute)).servedBy).toBe('exact');
      // Reopened from the store, the invalidated answer does not come back; the new one does.
      cache.invalidate(req(ASKED));
      store.close();
      const reopened = new CacheStore(file);
      const fresh = makeCache({ tuner: await fixedAt(s - 0.01), store: reopened }).cache;
      expect(fresh.size()).toEqual({ exact: 2, semantic: 2 });
      expect((await fresh.complete(req(PARAPHRASE), () => Promise.resolve(answer('computed')))).servedBy).toBeNull();
      reopened.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('tracks what it did: one event per outcome, hits per tier, sets per tier, entries per tier', async () => {
    const s = await similarityOf(ASKED, PARAPHRASE);
    const { cache, events } = makeCache({ tuner: await fixedAt(s - 0.01) });
    await cache.complete(req(ASKED), () => Promise.resolve(answer('Use pots.'))); // miss, 2 sets
    await cache.complete(req(ASKED), mustNotCompute); // Tier 1 hit
    await cache.complete(req(PARAPHRASE), mustNotCompute); // Tier 2 hit
    await cache.complete(req('Which fertiliser suits potted chillies best?'), () => Promise.resolve(answer('A tomato feed.'))); // miss, 2 sets
    const count = (type: CacheEventType, tier?: string) => events.filter(([t, p]) => t === type && (tier === undefined || p.tier === tier)).length;
    expect([count('cache.hit', 'exact'), count('cache.hit', 'semantic'), count('cache.miss'), count('cache.set', 'exact'), count('cache.set', 'semantic')]).toEqual([1, 1, 2, 2, 2]);
    expect(events.filter(([t]) => t === 'cache.hit').map(([, p]) => p.avoided_cost_usd)).toEqual(['0.001', '0.001']);
    expect(cache.size()).toEqual({ exact: 2, semantic: 2 });
  });
});
