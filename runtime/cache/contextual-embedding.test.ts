import { describe, expect, it } from 'vitest';
import { createHashingProvider } from '../patterns/embeddings/hashing-provider.ts';
import { dot } from '../patterns/embeddings/embedding-provider.ts';
import type { Provider } from '../providers/provider.ts';
import { contextPrompt, ContextualEmbeddingEngine, emulatedSummarizer, providerSummarizer } from './contextual-embedding.ts';
import { EmbeddingEngine } from './embedding-engine.ts';

const engine = () => new EmbeddingEngine(createHashingProvider(384));

describe('ContextualEmbeddingEngine (§13)', () => {
  it('the emulated summary is deterministic and labelled', async () => {
    const s = emulatedSummarizer();
    expect(s.emulated).toBe(true);
    const a = await s.summarize('Summarize the quarterly revenue report', { agent_id: 'fin' });
    expect(a).toBe(await s.summarize('Summarize the quarterly revenue report', { agent_id: 'fin' }));
    expect(a).toMatch(/^\[emulated\] A summarization request from agent fin/);
  });
  it('a contextual embedding differs from the plain one, and the agent changes it', async () => {
    const ctx = new ContextualEmbeddingEngine(engine(), emulatedSummarizer());
    const plain = await engine().embedText('What is the refund window?');
    const [a, summary, text] = await ctx.embedWithContext('What is the refund window?', { agent_id: 'shop-eu' });
    const [b] = await ctx.embedWithContext('What is the refund window?', { agent_id: 'shop-us' });
    expect(text.endsWith('What is the refund window?')).toBe(true);
    expect(summary).toContain('shop-eu');
    expect(dot(a, plain)).toBeLessThan(0.999);
    expect(dot(a, b)).toBeLessThan(0.999);
  });
  it('asks the run provider with the §13.4 prompt when one is given', async () => {
    const seen: string[] = [];
    const provider: Provider = {
      name: 'fake',
      capabilities: () => ({ tools: false, vision: false, prompt_caching: false, system_prompt: true, context_window: 1000 }),
      complete: (r) => {
        seen.push(r.messages[0]!.content[0]!.type === 'text' ? (r.messages[0]!.content[0] as { text: string }).text : '');
        return Promise.resolve({ model: r.model, content: [{ type: 'text', text: ' A billing FAQ. ' }], stop_reason: 'end_turn', usage: { input_tokens: 1, output_tokens: 1, cached_input_tokens: 0, cache_creation_input_tokens: 0 }, latency_ms: 1, request_id: 'x' });
      },
    };
    const ctx = new ContextualEmbeddingEngine(engine(), providerSummarizer(provider, 'anthropic:claude-haiku-4-5'));
    expect(await ctx.generateContext('How do I get a refund?', { task_type: 'faq' })).toBe('A billing FAQ.');
    expect(seen[0]).toBe(contextPrompt('How do I get a refund?', { task_type: 'faq' }));
    await expect(ctx.generateContext('  ')).rejects.toThrow(RangeError);
  });
});
