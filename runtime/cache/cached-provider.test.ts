import { describe, expect, it } from 'vitest';
import { createVirtualClock } from '../core/clock.ts';
import { createMemoryLogger } from '../core/logger.ts';
import { createEventBus } from '../events/index.ts';
import type { BusEvent } from '../events/event.ts';
import { createHashingProvider } from '../patterns/embeddings/hashing-provider.ts';
import type { Provider } from '../providers/provider.ts';
import type { CanonicalRequest } from '../types/request.ts';
import { callContextMetadata } from '../events/call-context.ts';
import { busCacheSink, createCachedProvider, traceCacheSink } from './cached-provider.ts';
import { EmbeddingEngine } from './embedding-engine.ts';
import { DocumentWorkflowTier } from './document-workflow.ts';
import { withDocuments } from './document-request.ts';
import { SemanticCache } from './semantic-cache.ts';

const req = (text: string, tools = false): CanonicalRequest => ({
  model: 'anthropic:claude-haiku-4-5',
  system: null,
  system_volatile: null,
  tools: tools ? [{ name: 'read_file', description: 'r', input_schema: { type: 'object' } }] : [],
  messages: [{ role: 'user', content: [{ type: 'text', text }] }],
  temperature: 0,
  max_tokens: 64,
});

function countingProvider(): Provider & { calls: number } {
  const p = {
    name: 'sim',
    calls: 0,
    capabilities: () => ({ tools: true, vision: false, prompt_caching: false, system_prompt: true, context_window: 1000 }),
    complete: (r: CanonicalRequest) => {
      p.calls++;
      return Promise.resolve({ model: r.model, content: [{ type: 'text' as const, text: `answer ${p.calls}` }], stop_reason: 'end_turn' as const, usage: { input_tokens: 10, output_tokens: 5, cached_input_tokens: 0, cache_creation_input_tokens: 0 }, latency_ms: 100, request_id: `r${p.calls}` });
    },
  };
  return p;
}

describe('createCachedProvider', () => {
  it('answers a repeat from the cache with zero usage and emits valid cache events on the bus', async () => {
    const events: BusEvent[] = [];
    const bus = createEventBus({ mode: 'strict', clock: createVirtualClock(), logger: createMemoryLogger() });
    bus.subscribe({ name: 't', filter: {}, handler: (e) => void events.push(e) });
    const inner = countingProvider();
    const cache = new SemanticCache({ scope: { tenant: 't', workspace: 'w' }, embeddings: new EmbeddingEngine(createHashingProvider(384)), costOf: () => '0.0001', onEvent: busCacheSink(bus, 'sess_cache') });
    const p = createCachedProvider(inner, cache);
    const a = await p.complete(req('What is the boiling point of water at sea level?'));
    const b = await p.complete(req('What is the boiling point of water at sea level?'));
    expect(inner.calls).toBe(1);
    expect(b.content).toEqual(a.content);
    expect(b.usage.input_tokens + b.usage.output_tokens).toBe(0);
    await bus.drain();
    expect(events.map((e) => e.type)).toEqual(['cache.miss', 'cache.set', 'cache.set', 'cache.hit']);
  });

  it("attaches each event to the session, turn and llm.call_started its request carries, and marks a served answer with its tier", async () => {
    const events: BusEvent[] = [];
    const bus = createEventBus({ mode: 'strict', clock: createVirtualClock(), logger: createMemoryLogger() });
    bus.subscribe({ name: 't', filter: {}, handler: (e) => void events.push(e) });
    const inner = countingProvider();
    const cache = new SemanticCache({ scope: { tenant: 't', workspace: 'w' }, costOf: () => '0.0001', onEvent: traceCacheSink(bus) });
    const p = createCachedProvider(inner, cache);
    const inSession = (id: string) => ({ ...req('What is the boiling point of water at sea level?'), metadata: callContextMetadata({ session_id: id, turn_id: `turn_${id}`, call_event_id: `evt_${id}` }) });
    const first = await p.complete(inSession('sess_a'));
    const second = await p.complete(inSession('sess_b'));
    await p.complete(req('What is the boiling point of water at sea level?')); // no call context: no event
    await bus.drain();
    expect(first.served_from_cache).toBeUndefined();
    expect(second.served_from_cache).toEqual({ tier: 'exact', entry_id: expect.any(String), served_cost_usd: '0' });
    // The bus keeps order within a session (its queues are per session).
    const of = (id: string) => events.filter((e) => e.session_id === id).map((e) => [e.type, e.turn_id, e.parent_event_id]);
    expect(of('sess_a')).toEqual([
      ['cache.miss', 'turn_sess_a', 'evt_sess_a'],
      ['cache.set', 'turn_sess_a', 'evt_sess_a'],
    ]);
    expect(of('sess_b')).toEqual([['cache.hit', 'turn_sess_b', 'evt_sess_b']]);
    expect(events).toHaveLength(3);
  });

  it('traces a document workflow: a partly held answer is a valid intermediate miss, a fully held one a $0 row marked intermediate', async () => {
    const events: BusEvent[] = [];
    // Strict mode validates every payload against its schema: an unknown tier would throw here.
    const bus = createEventBus({ mode: 'strict', clock: createVirtualClock(), logger: createMemoryLogger() });
    bus.subscribe({ name: 't', filter: {}, handler: (e) => void events.push(e) });
    const inner = countingProvider();
    const sink = traceCacheSink(bus);
    const cache = new SemanticCache({
      scope: { tenant: 't', workspace: 'w' },
      costOf: () => '0.0001',
      onEvent: sink,
      intermediate: new DocumentWorkflowTier({ costOf: () => '0.0001', onEvent: sink }),
    });
    const p = createCachedProvider(inner, cache);
    const policy = { id: 'leave-policy', text: 'Employees accrue two days of paid leave per month. Unused days expire after one year.' };
    const ask = (id: string, question: string) => ({
      ...withDocuments(req(question), [policy]),
      metadata: { ...withDocuments(req(question), [policy]).metadata, ...callContextMetadata({ session_id: id, turn_id: `turn_${id}`, call_event_id: `evt_${id}` }) },
    });
    const first = await p.complete(ask('sess_a', 'How many days of paid leave do employees accrue per month?'));
    const callsAfterFirst = inner.calls;
    // Same content words in another order: Tier 1 misses, every Tier 3 step is held.
    const second = await p.complete(ask('sess_b', 'Per month, how many days of paid leave do employees accrue?'));
    const callsAfterSecond = inner.calls;
    const third = await p.complete(ask('sess_c', 'When do unused leave days expire?'));
    await bus.drain();
    expect(first.served_from_cache).toBeUndefined();
    expect(callsAfterFirst).toBe(2); // summarise, then answer
    // The same question on the same document version: every step is held, no model is called.
    expect(callsAfterSecond).toBe(callsAfterFirst);
    expect(second.served_from_cache).toMatchObject({ tier: 'intermediate', served_cost_usd: '0' });
    expect(second.usage.input_tokens + second.usage.output_tokens).toBe(0);
    // A new question reuses the document's summary but computes its answer: a partial intermediate miss.
    expect(third.served_from_cache).toBeUndefined();
    expect(inner.calls).toBe(callsAfterSecond + 1);
    expect(events.filter((e) => e.session_id === 'sess_c').map((e) => [e.type, (e.payload as { tier: string }).tier])).toContainEqual(['cache.miss', 'intermediate']);
  });

  it('is transparent for agent requests: tools offered means every call reaches the provider', async () => {
    const inner = countingProvider();
    const cache = new SemanticCache({ scope: { tenant: 't', workspace: 'w' }, embeddings: new EmbeddingEngine(createHashingProvider(384)), costOf: () => '0' });
    const p = createCachedProvider(inner, cache);
    for (let i = 0; i < 3; i++) await p.complete(req('Fix the failing test in the parser module.', true));
    expect(inner.calls).toBe(3);
    expect(cache.size()).toEqual({ exact: 0, semantic: 0 });
  });
});
