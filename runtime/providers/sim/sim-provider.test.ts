import { describe, expect, it } from 'vitest';
import { Tiktoken } from 'js-tiktoken/lite';
import o200kBase from 'js-tiktoken/ranks/o200k_base';
import { createVirtualClock } from '../../core/clock.ts';
import { loadModelRegistry } from '../../models/model-registry.ts';
import type { Message, ToolUseBlock } from '../../types/content.ts';
import type { CanonicalRequest, ToolSpec } from '../../types/request.ts';
import type { CanonicalResponse } from '../../types/response.ts';
import { describeProviderContract } from '../provider-contract.ts';
import { ProviderError, type Provider } from '../provider.ts';
import { choosePlan } from './plan-choice.ts';
import { prngFor } from './prng.ts';
import { createSimProvider, type SimRunContext } from './sim-provider.ts';
import { prose, simRequest, simScript, userText } from './test-fixtures.ts';
import type { SimScript } from '../../../schemas/types/sim.ts';
import type { TokenCounter } from './token-counter.ts';

const registry = loadModelRegistry();
const ctx: SimRunContext = { seed: 7, workload: 'demo', pass: 'A', rep: 0 };
const ECHO: ToolSpec = { name: 'echo', description: 'Echo text.', input_schema: { type: 'object', properties: { text: { type: 'string' } } } };
const SONNET = 'anthropic:claude-sonnet-4-6';
const HAIKU = 'anthropic:claude-haiku-4-5';
const MIN = 60_000_000;

// An independent count: a fresh encoder, unmemoized, over the request as documented in request-segments.ts.
const enc = new Tiktoken(o200kBase);
const tok = (s: string | null): number => (s ? enc.encode(s, [], []).length : 0);
function expectedInputTokens(r: CanonicalRequest): number {
  let n = tok(r.system) + tok(r.system_volatile);
  for (const t of r.tools) n += tok(JSON.stringify({ name: t.name, description: t.description, input_schema: t.input_schema }));
  for (const m of r.messages) {
    for (const b of m.content) {
      if (b.type === 'text') n += tok(b.text);
      else if (b.type === 'tool_use') n += tok(JSON.stringify({ id: b.id, name: b.name, input: b.input }));
      else n += tok(b.content);
    }
  }
  return n;
}
const inputTotal = (r: CanonicalResponse): number => r.usage.input_tokens + r.usage.cached_input_tokens + r.usage.cache_creation_input_tokens;

function sim(script: SimScript = simScript(), context: SimRunContext = ctx, tokenizer?: TokenCounter) {
  const clock = createVirtualClock(1_700_000_000_000_000);
  return { clock, provider: createSimProvider({ script, registry, context, clock, ...(tokenizer ? { tokenizer } : {}) }) };
}

/** Plays every turn of a script to end_turn, answering tool calls with deterministic results. */
async function playSession(provider: Provider, model: string, turns: number): Promise<CanonicalResponse[]> {
  const messages: Message[] = [];
  const out: CanonicalResponse[] = [];
  for (let t = 0; t < turns; t++) {
    messages.push(userText(`Turn ${t}: please echo something.`));
    for (;;) {
      const r = await provider.complete(simRequest(model, messages, { tools: [ECHO], system: prose(1500) }));
      out.push(r);
      messages.push({ role: 'assistant', content: r.content });
      if (r.stop_reason === 'end_turn') break;
      const uses = r.content.filter((b): b is ToolUseBlock => b.type === 'tool_use');
      messages.push({ role: 'user', content: uses.map((u) => ({ type: 'tool_result', tool_use_id: u.id, content: `echoed ${JSON.stringify(u.input)}`, is_error: false })) });
    }
  }
  return out;
}

for (const model of [SONNET, 'openai:gpt-5']) {
  describeProviderContract(`sim as ${model}`, () => ({
    provider: sim(simScript(2)).provider,
    model,
    countInputTokens: expectedInputTokens,
    expectCacheHitOnRepeat: true,
  }));
}

describe('sim provider: determinism', () => {
  it('two providers with the same flags give byte-identical responses and usage over a whole session', async () => {
    const a = await playSession(sim().provider, SONNET, 3);
    const b = await playSession(sim().provider, SONNET, 3);
    expect(a.length).toBeGreaterThan(3);
    expect(JSON.stringify(b)).toBe(JSON.stringify(a));
  });

  it('another rep draws other tool_use ids', async () => {
    const a = await playSession(sim().provider, SONNET, 1);
    const b = await playSession(sim(simScript(), { ...ctx, rep: 1 }).provider, SONNET, 1);
    const ids = (rs: CanonicalResponse[]) => rs.flatMap((r) => r.content.flatMap((c) => (c.type === 'tool_use' ? [c.id] : [])));
    expect(ids(a).length).toBeGreaterThan(0);
    expect(ids(b)).not.toEqual(ids(a));
  });
});

describe('sim provider: turns and steps', () => {
  const script = simScript(2, 0.3);
  const planFor = (turn: number, model: string) =>
    choosePlan(script.turns[turn]!, registry.resolve(model).sim.competence, 0, prngFor({ ...ctx, turn, model })).plan;

  it('plays the chosen plan step by step; tool_result-only messages continue the turn', async () => {
    const { provider } = sim(script);
    const plan = planFor(0, SONNET);
    const messages: Message[] = [userText('go')];
    for (const step of plan.steps) {
      const r = await provider.complete(simRequest(SONNET, messages, { tools: [ECHO] }));
      expect(r.stop_reason).toBe('tool_use');
      expect(r.content[0]).toEqual({ type: 'text', text: step.text });
      const uses = r.content.filter((b): b is ToolUseBlock => b.type === 'tool_use');
      expect(uses.map((u) => [u.name, u.input])).toEqual(step.tool_calls.map((c) => [c.tool, c.input]));
      messages.push({ role: 'assistant', content: r.content }, { role: 'user', content: uses.map((u) => ({ type: 'tool_result', tool_use_id: u.id, content: 'ok', is_error: false })) });
    }
    const last = await provider.complete(simRequest(SONNET, messages, { tools: [ECHO] }));
    expect(last.stop_reason).toBe('end_turn');
    expect(last.content).toEqual([{ type: 'text', text: plan.final }]);
    // The next text message starts turn 1.
    messages.push({ role: 'assistant', content: last.content }, userText('next'));
    const next = await provider.complete(simRequest(SONNET, messages, { tools: [ECHO] }));
    expect(next.content[0]).toEqual({ type: 'text', text: planFor(1, SONNET).steps[0]!.text });
  });

  it('answers with the final text at once when no tools are offered', async () => {
    const r = await sim(script).provider.complete(simRequest(SONNET, [userText('go')]));
    expect(r.stop_reason).toBe('end_turn');
    expect(r.content).toEqual([{ type: 'text', text: planFor(0, SONNET).final }]);
  });

  it('refuses a turn the script does not have, naming the workload and turn', async () => {
    const messages = [userText('1'), { role: 'assistant' as const, content: [{ type: 'text' as const, text: 'a' }] }, userText('2'), { role: 'assistant' as const, content: [{ type: 'text' as const, text: 'b' }] }, userText('3')];
    const err = await sim(script).provider.complete(simRequest(SONNET, messages)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProviderError);
    expect((err as ProviderError).errorClass).toBe('invalid_request');
    expect((err as ProviderError).message).toContain("workload 'demo'");
    expect((err as ProviderError).message).toContain('turn 3');
  });

  it('accepts an alias, answers as the canonical id, and rejects an unknown model as invalid_request', async () => {
    const { provider } = sim(script);
    expect((await provider.complete(simRequest('sonnet', [userText('go')]))).model).toBe(SONNET);
    const err = await provider.complete(simRequest('claude-9', [userText('go')])).catch((e: unknown) => e);
    expect((err as ProviderError).errorClass).toBe('invalid_request');
    expect(provider.capabilities('haiku')).toEqual(registry.resolve(HAIKU).capabilities);
  });

  it('reports cancellation and context overflow in the catalog classes', async () => {
    const { provider } = sim(script);
    const aborted = AbortSignal.abort();
    expect(((await provider.complete(simRequest(SONNET, [userText('go')]), aborted).catch((e: unknown) => e)) as ProviderError).errorClass).toBe('cancelled');
    const huge: TokenCounter = { count: (s) => s.length * 100_000 };
    const big = sim(script, ctx, huge).provider;
    expect(((await big.complete(simRequest(SONNET, [userText('go')])).catch((e: unknown) => e)) as ProviderError).errorClass).toBe('context_overflow');
  });
});

describe('sim provider: usage', () => {
  it('input tokens are the tokenizer count of the serialized request; output the count of the response', async () => {
    const { provider } = sim();
    const messages: Message[] = [userText('Please echo "naïve café — 東京" ✓')];
    const req = simRequest(HAIKU, messages, { tools: [ECHO], system_volatile: 'MEMORY: likes tabs' });
    const r = await provider.complete(req);
    expect(inputTotal(r)).toBe(expectedInputTokens(req));
    const outText = r.content.map((b) => (b.type === 'text' ? b.text : b.type === 'tool_use' ? JSON.stringify({ id: b.id, name: b.name, input: b.input }) : ''));
    expect(r.usage.output_tokens).toBe(outText.reduce((s, t) => s + tok(t), 0));
    // Follow-up with the tool_use and tool_result in history.
    messages.push({ role: 'assistant', content: r.content }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'tu_x', content: 'echo: <|endoftext|> ok', is_error: false }] });
    const req2 = simRequest(HAIKU, messages, { tools: [ECHO] });
    expect(inputTotal(await provider.complete(req2))).toBe(expectedInputTokens(req2));
  });

  it('latency follows ttft + uncached input / speed + output / speed, and the virtual clock advances by it', async () => {
    const { provider, clock } = sim();
    const before = clock.nowUs();
    const r = await provider.complete(simRequest(SONNET, [userText('go')], { system: prose(2000) }));
    const p = registry.resolve(SONNET).sim;
    const ms = p.ttft_ms + (r.usage.input_tokens + r.usage.cache_creation_input_tokens) / p.input_tokens_per_ms + (r.usage.output_tokens * 1000) / p.output_tokens_per_second;
    expect(r.latency_ms).toBeCloseTo(ms, 3);
    expect(clock.nowUs() - before).toBe(Math.round(ms * 1000));
  });
});

describe('sim provider: Anthropic prompt-cache emulation', () => {
  const longSystem = prose(3000);
  const req = (model: string, text: string, extra: Partial<CanonicalRequest> = {}) => simRequest(model, [userText(text)], { tools: [ECHO], system: longSystem, ...extra });

  it('writes a prefix over the model minimum, then reads it on the next request', async () => {
    const { provider } = sim();
    const a = await provider.complete(req(SONNET, 'first'));
    const b = await provider.complete(req(SONNET, 'second, different question'));
    const prefix = tok(JSON.stringify({ name: ECHO.name, description: ECHO.description, input_schema: ECHO.input_schema })) + tok(longSystem);
    expect(a.usage.cache_creation_input_tokens).toBe(prefix);
    expect(a.usage.cached_input_tokens).toBe(0);
    expect(b.usage.cached_input_tokens).toBe(prefix);
    expect(b.usage.cache_creation_input_tokens).toBe(0);
    expect(b.usage.input_tokens).toBe(tok('second, different question'));
  });

  it('never caches a prefix under the model minimum (haiku 4096) though sonnet (1024) caches the same one', async () => {
    const { provider } = sim();
    for (let i = 0; i < 3; i++) {
      const r = await provider.complete(req(HAIKU, `q${i}`));
      expect([r.usage.cached_input_tokens, r.usage.cache_creation_input_tokens]).toEqual([0, 0]);
    }
    await provider.complete(req(SONNET, 'q'));
    expect((await provider.complete(req(SONNET, 'q2'))).usage.cached_input_tokens).toBeGreaterThan(0);
  });

  it('rewrites the prefix after 5 virtual minutes idle; a read inside the window refreshes it', async () => {
    const { provider, clock } = sim();
    const first = await provider.complete(req(SONNET, 'a'));
    const prefix = first.usage.cache_creation_input_tokens;
    clock.advanceUs(4 * MIN);
    expect((await provider.complete(req(SONNET, 'b'))).usage.cached_input_tokens).toBe(prefix);
    clock.advanceUs(4 * MIN); // 8 minutes after the write, 4 after the refreshing read
    expect((await provider.complete(req(SONNET, 'c'))).usage.cached_input_tokens).toBe(prefix);
    clock.advanceUs(5 * MIN);
    const expired = await provider.complete(req(SONNET, 'd'));
    expect(expired.usage.cached_input_tokens).toBe(0);
    expect(expired.usage.cache_creation_input_tokens).toBe(prefix);
  });

  it('a changed volatile segment does not break the cached prefix; a changed stable system does', async () => {
    const { provider } = sim();
    const a = await provider.complete(req(SONNET, 'a', { system_volatile: 'MEMORY v1' }));
    const b = await provider.complete(req(SONNET, 'a', { system_volatile: 'MEMORY v2, now longer' }));
    expect(b.usage.cached_input_tokens).toBe(a.usage.cache_creation_input_tokens);
    expect(b.usage.input_tokens).toBe(tok('MEMORY v2, now longer') + tok('a'));
    const c = await provider.complete(req(SONNET, 'a', { system: `${longSystem} (edited)` }));
    expect(c.usage.cached_input_tokens).toBe(0);
    expect(c.usage.cache_creation_input_tokens).toBeGreaterThan(0);
  });
});

describe('sim provider: OpenAI automatic prefix cache', () => {
  it('reads repeated prefixes in 128-token steps past 1024 and never charges a cache write', async () => {
    const { provider } = sim();
    const r = (text: string) => simRequest('gpt-5', [userText(text)], { tools: [ECHO], system: prose(3000) });
    const a = await provider.complete(r('one'));
    const b = await provider.complete(r('two'));
    expect(a.usage.cached_input_tokens).toBe(0);
    expect(b.usage.cached_input_tokens).toBeGreaterThanOrEqual(1024);
    expect((b.usage.cached_input_tokens - 1024) % 128).toBe(0);
    expect(b.usage.cached_input_tokens).toBeLessThanOrEqual(inputTotal(b) - tok('two'));
    expect(a.usage.cache_creation_input_tokens + b.usage.cache_creation_input_tokens).toBe(0);
  });
});

describe('sim provider: script edge', () => {
  it('a model switched mid-turn to a shorter plan plays that plan\'s final text instead of failing', async () => {
    const turn = {
      difficulty: 0.76,
      plans: [
        { id: 'long-right', competent: true, steps: [0, 1].map((i) => ({ tool_calls: [{ tool: 'echo', input: { text: String(i) } }] })), final: 'right' },
        { id: 'give-up', competent: false, steps: [], final: 'gave up' },
      ],
    };
    const script: SimScript = { version: 1, turns: [turn] };
    const pick = (seed: number, model: string) => choosePlan(turn, registry.resolve(model).sim.competence, 0, prngFor({ ...ctx, seed, turn: 0, model })).plan.id;
    // A seed where opus takes the two-step plan and haiku gives up.
    const seed = Array.from({ length: 200 }, (_, i) => i).find((s) => pick(s, 'anthropic:claude-opus-4-5') === 'long-right' && pick(s, HAIKU) === 'give-up')!;
    expect(seed).toBeDefined();
    const { provider } = sim(script, { ...ctx, seed });
    const messages: Message[] = [userText('go')];
    const r0 = await provider.complete(simRequest('opus', messages, { tools: [ECHO] }));
    expect(r0.stop_reason).toBe('tool_use');
    const uses = r0.content.filter((b): b is ToolUseBlock => b.type === 'tool_use');
    messages.push({ role: 'assistant', content: r0.content }, { role: 'user', content: uses.map((u) => ({ type: 'tool_result', tool_use_id: u.id, content: 'ok', is_error: false })) });
    const r1 = await provider.complete(simRequest(HAIKU, messages, { tools: [ECHO] }));
    expect(r1.stop_reason).toBe('end_turn');
    expect(r1.content).toEqual([{ type: 'text', text: 'gave up' }]);
  });
});
