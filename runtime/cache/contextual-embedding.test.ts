import { describe, expect, it } from 'vitest';
import { createHashingProvider } from '../patterns/embeddings/hashing-provider.ts';
import { dot } from '../patterns/embeddings/embedding-provider.ts';
import type { Provider } from '../providers/provider.ts';
import type { CanonicalRequest } from '../types/request.ts';
import type { CanonicalResponse } from '../types/response.ts';
import { contextPrompt, ContextualEmbeddingEngine, emulatedSummarizer, providerSummarizer, type ContextMeta } from './contextual-embedding.ts';
import { EmbeddingEngine } from './embedding-engine.ts';
import { SemanticCache } from './semantic-cache.ts';
import { AdaptiveThresholdTuner } from './threshold-tuner.ts';
import { InMemoryVectorDatabase } from './vector-database.ts';

const engine = () => new EmbeddingEngine(createHashingProvider(384));
const contextual = () => new ContextualEmbeddingEngine(engine(), emulatedSummarizer());

/** A provider that answers every request with `reply` and records the requests it got. */
function fakeProvider(reply: string) {
  const seen: CanonicalRequest[] = [];
  const provider: Provider = {
    name: 'fake',
    capabilities: () => ({ tools: false, vision: false, prompt_caching: false, system_prompt: true, context_window: 1000 }),
    complete: (r) => {
      seen.push(r);
      return Promise.resolve({ model: r.model, content: [{ type: 'text', text: reply }], stop_reason: 'end_turn', usage: { input_tokens: 1, output_tokens: 1, cached_input_tokens: 0, cache_creation_input_tokens: 0 }, latency_ms: 1, request_id: 'x' });
    },
  };
  return { provider, seen };
}
const promptOf = (r: CanonicalRequest) => (r.messages[0]!.content[0] as { text: string }).text;

describe('ContextualEmbeddingEngine (§13): context generation', () => {
  it('the emulated summary is deterministic and labelled', async () => {
    const s = emulatedSummarizer();
    expect(s.emulated).toBe(true);
    const a = await s.summarize('Summarize the quarterly revenue report', { agent_id: 'fin' });
    expect(a).toBe(await s.summarize('Summarize the quarterly revenue report', { agent_id: 'fin' }));
    expect(a).toBe('[emulated] A summarization request from agent fin about quarterly report revenue summarize.');
  });

  it('the emulated summary takes a given task type over the detected one, and names no agent when there is none', async () => {
    const s = emulatedSummarizer();
    expect(await s.summarize('Summarize the contract', { task_type: 'legal' })).toBe('[emulated] A legal request about contract summarize.');
    expect(await s.summarize('Summarize the contract', { task_type: 'general' })).toBe('[emulated] A summarization request about contract summarize.');
  });

  it('asks the run provider with the §13.4 prompt: one short, deterministic call to the given model', async () => {
    const { provider, seen } = fakeProvider(' A billing FAQ. ');
    const ctx = new ContextualEmbeddingEngine(engine(), providerSummarizer(provider, 'anthropic:claude-haiku-4-5'));
    expect(ctx.summarizer.emulated).toBe(false);
    expect(await ctx.generateContext('How do I get a refund?', { task_type: 'faq' })).toBe('A billing FAQ.');
    expect(promptOf(seen[0]!)).toBe(contextPrompt('How do I get a refund?', { task_type: 'faq' }));
    expect(seen[0]).toMatchObject({ model: 'anthropic:claude-haiku-4-5', temperature: 0, max_tokens: 80, tools: [] });
  });

  it('the §13.4 prompt holds the first 500 characters and the metadata, with defaults for what is missing', () => {
    const p = contextPrompt(`${'a'.repeat(500)}TAIL`, {});
    expect(p).toContain(`Text to contextualize: ${'a'.repeat(500)}\n`);
    expect(p).not.toContain('TAIL');
    expect(p).toContain('Metadata: Agent: none, Task: general, Quality: 3.5');
    expect(contextPrompt('x', { agent_id: 'ops', task_type: 'coding', quality_req: 4.2 })).toContain('Metadata: Agent: ops, Task: coding, Quality: 4.2');
  });

  it('refuses an empty text before asking anyone', async () => {
    const { provider, seen } = fakeProvider('x');
    const ctx = new ContextualEmbeddingEngine(engine(), providerSummarizer(provider, 'anthropic:claude-haiku-4-5'));
    await expect(ctx.generateContext('  ')).rejects.toThrow(RangeError);
    await expect(ctx.embedWithContext('')).rejects.toThrow(RangeError);
    expect(seen).toHaveLength(0);
  });
});

describe('ContextualEmbeddingEngine (§13): contextual vs plain embedding', () => {
  it('a contextual embedding differs from the plain one, and the agent changes it', async () => {
    const ctx = contextual();
    const plain = await engine().embedText('What is the refund window?');
    const [a, summary, text] = await ctx.embedWithContext('What is the refund window?', { agent_id: 'shop-eu' });
    const [b] = await ctx.embedWithContext('What is the refund window?', { agent_id: 'shop-us' });
    expect(text).toBe(`${summary}\n\nWhat is the refund window?`);
    expect(summary).toContain('shop-eu');
    expect(dot(a, plain)).toBeLessThan(0.999);
    expect(dot(a, b)).toBeLessThan(0.999);
  });

  it('the same text and metadata give the same vector, the embedding of the contextual text', async () => {
    const ctx = contextual();
    const [a, , text] = await ctx.embedWithContext('What is the refund window?', { agent_id: 'shop-eu' });
    const [b] = await ctx.embedWithContext('What is the refund window?', { agent_id: 'shop-eu' });
    expect(Array.from(a)).toEqual(Array.from(b));
    expect(Array.from(a)).toEqual(Array.from(await engine().embedText(text)));
    expect(await ctx.embeddingText({ agent_id: 'shop-eu' })('What is the refund window?')).toBe(text);
  });
});

describe('ContextualEmbeddingEngine (§13): retrieval', () => {
  it('a query finds the entry stored under its own context first', async () => {
    const ctx = contextual();
    const db = new InMemoryVectorDatabase(384);
    const meta: Record<string, ContextMeta> = { eu: { agent_id: 'shop-eu' }, us: { agent_id: 'shop-us' }, hr: { agent_id: 'hr-bot' } };
    for (const [id, m] of Object.entries(meta)) db.upsert([{ id, partition: 'p', vector: (await ctx.embedWithContext('What is the refund window?', m))[0] }]);
    const [q] = await ctx.embedWithContext('What is the refund window?', { agent_id: 'shop-us' });
    const hits = db.query('p', q, 3);
    expect(hits[0]!.id).toBe('us');
    expect(hits[0]!.score).toBeGreaterThan(0.999);
    expect(hits[1]!.score).toBeLessThan(0.999);
  });

  // Tier 2 retrieval with §13 plugged in as `embeddingText`; a fixed threshold (delta 1, no exploration).
  const STORED = 'How do I reset my password?';
  const ASKED = 'How do I reset my account password?';
  const meta = { agent_id: 'support' };
  const req = (text: string): CanonicalRequest => ({ model: 'anthropic:claude-haiku-4-5', system: null, system_volatile: null, tools: [], messages: [{ role: 'user', content: [{ type: 'text', text }] }], temperature: 0, max_tokens: 64 });
  const reply: CanonicalResponse = { model: 'anthropic:claude-haiku-4-5', content: [{ type: 'text', text: 'Use the reset link.' }], stop_reason: 'end_turn', usage: { input_tokens: 10, output_tokens: 5, cached_input_tokens: 0, cache_creation_input_tokens: 0 }, latency_ms: 1, request_id: 'r' };
  /** Stores STORED, then asks ASKED under a fixed threshold; what served it. */
  async function askAt(threshold: number, withContext: boolean) {
    const prior = new AdaptiveThresholdTuner().getThreshold('faq', 'medium');
    const cache = new SemanticCache({
      scope: { tenant: 't', workspace: 'w' },
      embeddings: engine(),
      ...(withContext ? { embeddingText: contextual().embeddingText(meta) } : {}),
      tuner: new AdaptiveThresholdTuner({ delta: 1, exploreRate: 0, priorOffset: threshold - prior }),
      costOf: () => '0.001',
    });
    await cache.complete(req(STORED), () => Promise.resolve(reply));
    return cache.complete(req(ASKED), () => Promise.resolve({ ...reply, content: [{ type: 'text', text: 'fresh' }] }));
  }
  async function similarities() {
    const ctx = contextual();
    const withCtx = dot((await ctx.embedWithContext(STORED, meta))[0], (await ctx.embedWithContext(ASKED, meta))[0]);
    const plain = dot(await engine().embedText(STORED), await engine().embedText(ASKED));
    return { withCtx, plain };
  }

  it('Tier 2 matches on the contextual texts: a rewording the plain embedding leaves below the threshold is served', async () => {
    const { withCtx, plain } = await similarities();
    expect(withCtx).toBeGreaterThan(plain + 0.02); // the shared summary raises the cosine (docs/semantic-cache.md)
    const between = (withCtx + plain) / 2;
    expect((await askAt(between, true)).servedBy).toBe('semantic');
    expect((await askAt(between, false)).servedBy).toBeNull();
  });

  it('the threshold is enforced on the contextual similarity', async () => {
    const { withCtx } = await similarities();
    expect((await askAt(withCtx - 0.01, true)).servedBy).toBe('semantic');
    const above = await askAt(withCtx + 0.01, true);
    expect(above.servedBy).toBeNull();
    expect(above.missReason).toBe('below_prior');
  });
});
