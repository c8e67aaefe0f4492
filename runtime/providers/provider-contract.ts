// The conformance suite every Provider implementation runs (like hono's router/common.case.test.ts).
// Imported only from *.test.ts files: it uses vitest and is not part of the public API in index.ts.
import { describe, expect, it } from 'vitest';
import type { ContentBlock, Message, ToolUseBlock } from '../types/content.ts';
import type { CanonicalRequest, ToolSpec } from '../types/request.ts';
import type { CanonicalResponse } from '../types/response.ts';
import type { Provider } from './provider.ts';

/** What a provider under test needs to be driven through the contract. */
export interface ProviderContractFixture {
  provider: Provider;
  /** Model id to request (canonical or alias). */
  model: string;
  /** Exact input-token count of a request when the implementation can say (sim, or a count_tokens endpoint). */
  countInputTokens?: (request: CanonicalRequest) => number;
  /** True when a repeated long request must read the prompt cache (sim; real caches are best effort). */
  expectCacheHitOnRepeat?: boolean;
}

/** The tool the contract offers; a provider scripted or prompted to call it must do so with `{text}`. */
export const CONTRACT_TOOL: ToolSpec = {
  name: 'echo',
  description: 'Echoes the given text back. Call it whenever the user asks you to echo something.',
  input_schema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'], additionalProperties: false },
};

const TEXT_PROMPT = 'Reply with one short sentence saying hello.';
const TOOL_PROMPT = 'Use the echo tool to echo the word "contract", then tell me what it returned.';
// ~6k tokens of stable, varied text: above every model's cache floor (4096 is the highest).
const LONG_SYSTEM = Array.from(
  { length: 300 },
  (_, i) => `Guideline ${i + 1}: keep file edits minimal, explain each change in one sentence, and run the tests after step ${i % 7}.`,
).join('\n');

function request(model: string, messages: Message[], extra: Partial<CanonicalRequest> = {}): CanonicalRequest {
  return { model, system: 'You are a careful assistant.', system_volatile: null, tools: [], messages, temperature: 0, max_tokens: 1024, ...extra };
}

const user = (text: string): Message => ({ role: 'user', content: [{ type: 'text', text }] });

function expectCanonical(r: CanonicalResponse): void {
  expect(typeof r.model).toBe('string');
  expect(r.model.length).toBeGreaterThan(0);
  expect(['end_turn', 'max_tokens', 'stop_sequence', 'tool_use']).toContain(r.stop_reason);
  expect(Array.isArray(r.content)).toBe(true);
  for (const b of r.content as ContentBlock[]) {
    if (b.type === 'text') expect(typeof b.text).toBe('string');
    else if (b.type === 'tool_use') {
      expect(b.id).toMatch(/^tu_[0-9A-HJKMNP-TV-Z]{26}$/);
      expect(typeof b.name).toBe('string');
      expect(typeof b.input).toBe('object');
    } else throw new Error(`assistant content may not hold ${b.type} blocks`);
  }
  for (const k of ['input_tokens', 'output_tokens', 'cached_input_tokens', 'cache_creation_input_tokens'] as const) {
    expect(Number.isInteger(r.usage[k]), k).toBe(true);
    expect(r.usage[k], k).toBeGreaterThanOrEqual(0);
  }
  expect(r.latency_ms).toBeGreaterThanOrEqual(0);
  expect(typeof r.request_id).toBe('string');
  expect(r.request_id.length).toBeGreaterThan(0);
}

const inputTotal = (r: CanonicalResponse): number => r.usage.input_tokens + r.usage.cached_input_tokens + r.usage.cache_creation_input_tokens;

/** Registers the Provider contract tests for one implementation; `makeFixture` is called per test. */
export function describeProviderContract(name: string, makeFixture: () => ProviderContractFixture | Promise<ProviderContractFixture>): void {
  describe(`Provider contract: ${name}`, () => {
    it('answers a text request with end_turn, text content and non-negative usage', async () => {
      const { provider, model } = await makeFixture();
      const r = await provider.complete(request(model, [user(TEXT_PROMPT)]));
      expectCanonical(r);
      expect(r.stop_reason).toBe('end_turn');
      expect(r.content.some((b) => b.type === 'text' && b.text.length > 0)).toBe(true);
      expect(r.usage.output_tokens).toBeGreaterThan(0);
      expect(inputTotal(r)).toBeGreaterThan(0);
    });

    it('round-trips tool_use → tool_result until end_turn', async () => {
      const { provider, model } = await makeFixture();
      const messages: Message[] = [user(TOOL_PROMPT)];
      const first = await provider.complete(request(model, messages, { tools: [CONTRACT_TOOL] }));
      expectCanonical(first);
      expect(first.stop_reason).toBe('tool_use');
      let r = first;
      for (let round = 0; r.stop_reason === 'tool_use'; round++) {
        expect(round, 'tool loop did not end within 5 rounds').toBeLessThan(5);
        const uses = r.content.filter((b): b is ToolUseBlock => b.type === 'tool_use');
        expect(uses.length).toBeGreaterThan(0);
        for (const u of uses) expect(u.name).toBe(CONTRACT_TOOL.name);
        messages.push({ role: 'assistant', content: r.content });
        messages.push({
          role: 'user',
          content: uses.map((u) => ({ type: 'tool_result', tool_use_id: u.id, content: String(u.input.text ?? ''), is_error: false })),
        });
        r = await provider.complete(request(model, messages, { tools: [CONTRACT_TOOL] }));
        expectCanonical(r);
      }
      expect(r.stop_reason).toBe('end_turn');
      const ids = messages.flatMap((m) => m.content.flatMap((b) => (b.type === 'tool_use' ? [b.id] : [])));
      expect(new Set(ids).size).toBe(ids.length);
    });

    it('reports input_tokens as uncached input only: input + cached + creation is the request total', async () => {
      const { provider, model, countInputTokens, expectCacheHitOnRepeat } = await makeFixture();
      const req = request(model, [user(TEXT_PROMPT)], { system: LONG_SYSTEM, tools: [CONTRACT_TOOL] });
      const a = await provider.complete(req);
      const b = await provider.complete(req);
      // An OpenAI-style prompt_tokens (cached included) would double-count and break this equality.
      expect(inputTotal(b)).toBe(inputTotal(a));
      if (countInputTokens) {
        expect(inputTotal(a)).toBe(countInputTokens(req));
        expect(inputTotal(b)).toBe(countInputTokens(req));
      }
      if (expectCacheHitOnRepeat) {
        expect(b.usage.cached_input_tokens).toBeGreaterThan(0);
        expect(b.usage.input_tokens).toBeLessThan(a.usage.input_tokens + a.usage.cache_creation_input_tokens);
      }
    });

    it('does not mutate the request', async () => {
      const { provider, model } = await makeFixture();
      const req = request(model, [user(TOOL_PROMPT)], { tools: [CONTRACT_TOOL], system_volatile: 'Today is turn 1.' });
      const before = structuredClone(req);
      const r = await provider.complete(req);
      expect(req).toEqual(before);
      // A follow-up request holding the response (tool results included) is not mutated either.
      const next = request(model, [...req.messages, { role: 'assistant', content: r.content }], { tools: [CONTRACT_TOOL] });
      const results = r.content.flatMap((b) => (b.type === 'tool_use' ? [{ type: 'tool_result' as const, tool_use_id: b.id, content: 'ok', is_error: false }] : []));
      next.messages.push(results.length > 0 ? { role: 'user', content: results } : user('Thanks.'));
      const snapshot = structuredClone(next);
      await provider.complete(next);
      expect(next).toEqual(snapshot);
    });

    it('declares capabilities for the model', async () => {
      const { provider, model } = await makeFixture();
      const c = provider.capabilities(model);
      for (const k of ['tools', 'vision', 'prompt_caching', 'system_prompt'] as const) expect(typeof c[k]).toBe('boolean');
      expect(Number.isInteger(c.context_window) && c.context_window > 0).toBe(true);
    });
  });
}
