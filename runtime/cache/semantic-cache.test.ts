import { describe, expect, it } from 'vitest';
import { createHashingProvider } from '../patterns/embeddings/hashing-provider.ts';
import type { Message } from '../types/content.ts';
import type { CanonicalRequest } from '../types/request.ts';
import type { CanonicalResponse } from '../types/response.ts';
import type { CacheEventType } from './cache-events.ts';
import { EmbeddingEngine } from './embedding-engine.ts';
import { createPaidEmbedder, pricesWithEmbedder } from './test-support/paid-embedder.ts';
import { SemanticCache, TENANT_METADATA_KEY, type SemanticCacheOptions } from './semantic-cache.ts';
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
