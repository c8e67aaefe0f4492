import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createVirtualClock } from '../../core/clock.ts';
import { loadModelRegistry } from '../../models/model-registry.ts';
import type { Message, ToolUseBlock } from '../../types/content.ts';
import type { CanonicalRequest, ToolSpec } from '../../types/request.ts';
import { anthropicError, anthropicMessage, anthropicText, anthropicToolUse, startFakeAnthropic, type LoopbackServer, type ScriptedReply } from '../../../test/support/loopback/index.ts';
import { backoff, DEFAULT_BACKOFF } from '../backoff.ts';
import { describeProviderContract } from '../provider-contract.ts';
import { ProviderError, type ProviderErrorClass } from '../provider.ts';
import { timerSleep, type Sleep } from '../retry.ts';
import { createAnthropicProvider, type AnthropicProviderOptions } from './anthropic-provider.ts';

const registry = loadModelRegistry();
const KEY = 'sk-ant-api03-TESTKEY0123456789abcdefXYZ';
const EPHEMERAL = { type: 'ephemeral' };
const START_US = 1_767_225_600_000_000; // 2026-01-01T00:00:00Z

let server: LoopbackServer;
beforeEach(async () => {
  server = await startFakeAnthropic();
});
afterEach(async () => {
  await server.close();
});

/** A provider on the loopback server whose sleeps are recorded (and advance the virtual clock) instead of waited. */
function setup(options: Partial<AnthropicProviderOptions> = {}) {
  const sleeps: number[] = [];
  const clock = createVirtualClock(START_US);
  const sleep: Sleep = async (ms) => {
    sleeps.push(ms);
    clock.advanceUs(ms * 1000);
  };
  const provider = createAnthropicProvider({ apiKey: KEY, baseURL: server.baseURL, registry, sleep, random: () => 0.5, clock, ...options });
  return { provider, sleeps, clock };
}

const user = (text: string): Message => ({ role: 'user', content: [{ type: 'text', text }] });
const simple = (extra: Partial<CanonicalRequest> = {}): CanonicalRequest => ({
  model: 'sonnet',
  system: 'Be brief.',
  system_volatile: null,
  tools: [],
  messages: [user('Hi')],
  temperature: 0,
  max_tokens: 256,
  ...extra,
});

describeProviderContract('anthropic (SDK → loopback Messages API)', () => ({ provider: setup().provider, model: 'sonnet', expectCacheHitOnRepeat: true }));

describe('anthropic adapter: a multi-turn exchange with a tool cycle, on the wire', () => {
  const STABLE = 'You are a careful coding agent. Keep edits minimal.';
  const READ: ToolSpec = { name: 'read_file', description: 'Read a file.', input_schema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } };
  const WRITE: ToolSpec = { name: 'write_file', description: 'Write a file.', input_schema: { type: 'object', properties: { path: { type: 'string' }, text: { type: 'string' } } } };
  const wireTools = [
    { name: 'read_file', description: 'Read a file.', input_schema: READ.input_schema },
    { name: 'write_file', description: 'Write a file.', input_schema: WRITE.input_schema, cache_control: EPHEMERAL },
  ];
  const request = (messages: Message[], volatile: string): CanonicalRequest => ({
    model: 'anthropic:claude-sonnet-4-6',
    system: STABLE,
    system_volatile: volatile,
    tools: [READ, WRITE],
    messages: structuredClone(messages),
    temperature: 0.2,
    max_tokens: 2048,
    metadata: { workload: 'never-on-the-wire' },
  });

  it('sends breakpoints on the stable system block and the last tool, keeps the prefix byte-identical, and normalises usage', async () => {
    server.enqueue(
      anthropicToolUse([{ name: 'read_file', input: { path: 'a.ts' }, id: 'toolu_wire_1' }], {
        text: 'Reading.',
        usage: { input_tokens: 30, output_tokens: 9, cache_read_input_tokens: 0, cache_creation_input_tokens: 4100 },
      }),
      anthropicText('Fixed.', { input_tokens: 40, output_tokens: 12, cache_read_input_tokens: 4100, cache_creation_input_tokens: 0 }),
      anthropicText('Test added.', { input_tokens: 55, output_tokens: 7, cache_read_input_tokens: 4100, cache_creation_input_tokens: 0 }),
    );
    const { provider } = setup();
    const messages: Message[] = [user('Fix the bug in a.ts')];

    const r1 = await provider.complete(request(messages, 'Memory: turn 1.'));
    expect(r1.stop_reason).toBe('tool_use');
    expect(r1.model).toBe('anthropic:claude-sonnet-4-6');
    expect(r1.request_id).toMatch(/^msg_loopback_/);
    expect(r1.usage).toEqual({ input_tokens: 30, output_tokens: 9, cached_input_tokens: 0, cache_creation_input_tokens: 4100 });
    const use = r1.content[1] as ToolUseBlock;
    expect(r1.content[0]).toEqual({ type: 'text', text: 'Reading.' });
    expect(use).toMatchObject({ type: 'tool_use', name: 'read_file', input: { path: 'a.ts' } });
    expect(use.id).toMatch(/^tu_[0-9A-HJKMNP-TV-Z]{26}$/);

    messages.push({ role: 'assistant', content: r1.content }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: 'const a = 1;', is_error: false }] });
    const r2 = await provider.complete(request(messages, 'Memory: turn 1.'));
    expect(r2).toMatchObject({ stop_reason: 'end_turn', content: [{ type: 'text', text: 'Fixed.' }] });
    expect(r2.usage).toEqual({ input_tokens: 40, output_tokens: 12, cached_input_tokens: 4100, cache_creation_input_tokens: 0 });

    messages.push({ role: 'assistant', content: r2.content }, user('Now add a test.'));
    await provider.complete(request(messages, 'Memory: turn 2, a.ts edited.'));

    const [b1, b2, b3] = server.requests.map((r) => r.body);
    const system = (volatile: string) => [
      { type: 'text', text: STABLE, cache_control: EPHEMERAL },
      { type: 'text', text: volatile },
    ];
    const turn1 = [{ role: 'user', content: [{ type: 'text', text: 'Fix the bug in a.ts' }] }];
    const cycle = [
      ...turn1,
      { role: 'assistant', content: [{ type: 'text', text: 'Reading.' }, { type: 'tool_use', id: use.id, name: 'read_file', input: { path: 'a.ts' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: 'const a = 1;', is_error: false }] },
    ];
    const base = { model: 'claude-sonnet-4-6', max_tokens: 2048, temperature: 0.2, tools: wireTools };
    expect(b1).toEqual({ ...base, system: system('Memory: turn 1.'), messages: turn1 });
    expect(b2).toEqual({ ...base, system: system('Memory: turn 1.'), messages: cycle });
    expect(b3).toEqual({
      ...base,
      system: system('Memory: turn 2, a.ts edited.'),
      messages: [...cycle, { role: 'assistant', content: [{ type: 'text', text: 'Fixed.' }] }, { role: 'user', content: [{ type: 'text', text: 'Now add a test.' }] }],
    });

    // The cached prefix (tools, then the stable system block) is the same bytes on every turn, and the volatile text follows it.
    const stableBlock = JSON.stringify({ type: 'text', text: STABLE, cache_control: EPHEMERAL });
    const toolBytes = `"tools":${JSON.stringify(wireTools)}`;
    for (const { rawBody } of server.requests) {
      expect(rawBody).toContain(toolBytes);
      expect(rawBody).toContain(`"system":[${stableBlock},{"type":"text","text":"Memory: turn`);
      expect(rawBody).not.toContain('never-on-the-wire');
    }
    expect(JSON.stringify(server.requests.map((r) => r.headers))).toContain(KEY);
  });

  it('omits system and tools when the request has none, and puts no breakpoint on a volatile-only system', async () => {
    const { provider } = setup();
    await provider.complete(simple({ system: null, system_volatile: null }));
    await provider.complete(simple({ system: null, system_volatile: 'Only volatile.' }));
    expect(server.requests[0]!.body).toEqual({ model: 'claude-sonnet-4-6', max_tokens: 256, temperature: 0, messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }] });
    expect((server.requests[1]!.body as { system: unknown }).system).toEqual([{ type: 'text', text: 'Only volatile.' }]);
  });

  it('sends a failed tool result with is_error: true', async () => {
    const { provider } = setup();
    const messages: Message[] = [
      user('Read it'),
      { role: 'assistant', content: [{ type: 'tool_use', id: 'tu_01J0000000000000000000000A', name: 'read_file', input: { path: 'x' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'tu_01J0000000000000000000000A', content: 'no such file', is_error: true }] },
    ];
    await provider.complete(simple({ messages }));
    const sent = (server.requests[0]!.body as { messages: unknown[] }).messages[2];
    expect(sent).toEqual({ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'tu_01J0000000000000000000000A', content: 'no such file', is_error: true }] });
  });
});

describe('anthropic adapter: response mapping', () => {
  it.each([
    ['end_turn', 'end_turn'],
    ['max_tokens', 'max_tokens'],
    ['stop_sequence', 'stop_sequence'],
    ['refusal', 'end_turn'],
    ['pause_turn', 'end_turn'],
    ['model_context_window_exceeded', 'max_tokens'],
  ])('maps stop_reason %s to %s', async (wire, canonical) => {
    server.enqueue(anthropicMessage([{ type: 'text', text: 'x' }], wire, { input_tokens: 1, output_tokens: 1 }));
    expect((await setup().provider.complete(simple())).stop_reason).toBe(canonical);
  });

  it('drops non-canonical blocks (thinking) and measures latency on the injected clock, retry waits included', async () => {
    server.enqueue(anthropicError(429, 'rate_limit_error', 'slow down', { 'retry-after': '2' }));
    server.enqueue(anthropicMessage([{ type: 'thinking', thinking: 'hmm', signature: 's' }, { type: 'text', text: 'ok' }], 'end_turn', { input_tokens: 3, output_tokens: 2 }));
    const r = await setup().provider.complete(simple());
    expect(r.content).toEqual([{ type: 'text', text: 'ok' }]);
    expect(r.latency_ms).toBe(2000);
  });
});

describe('anthropic adapter: capabilities and setup', () => {
  it('declares the registry capabilities with prompt caching on, and refuses models it does not serve', () => {
    const { provider } = setup();
    expect(provider.name).toBe('anthropic');
    expect(provider.capabilities('haiku')).toEqual({ tools: true, vision: true, prompt_caching: true, system_prompt: true, context_window: 200000 });
    expect(() => provider.capabilities('gpt-5')).toThrow(/served by openai/);
    expect(() => provider.capabilities('anthropic:claude-unknown')).toThrow(ProviderError);
  });

  it('rejects an unknown model as invalid_request without calling the API', async () => {
    await expect(setup().provider.complete(simple({ model: 'anthropic:claude-unknown' }))).rejects.toMatchObject({ errorClass: 'invalid_request' });
    expect(server.requests).toHaveLength(0);
  });

  it('refuses to start without a key, naming the variable', () => {
    expect(() => createAnthropicProvider({ apiKey: '', registry })).toThrow(/ANTHROPIC_API_KEY/);
  });
});

describe('anthropic adapter: error classes', () => {
  const cases: [string, ScriptedReply, ProviderErrorClass][] = [
    ['429', anthropicError(429, 'rate_limit_error', 'Number of requests has exceeded your rate limit'), 'rate_limit'],
    ['401', anthropicError(401, 'authentication_error', 'invalid x-api-key'), 'auth'],
    ['403', anthropicError(403, 'permission_error', 'Your API key does not have permission'), 'auth'],
    ['500', anthropicError(500, 'api_error', 'Internal server error'), 'server_error'],
    ['529 overloaded', anthropicError(529, 'overloaded_error', 'Overloaded'), 'server_error'],
    ['400 context length', anthropicError(400, 'invalid_request_error', 'prompt is too long: 215000 tokens > 200000 maximum'), 'context_overflow'],
    ['400 other', anthropicError(400, 'invalid_request_error', 'messages: roles must alternate'), 'invalid_request'],
    ['404', anthropicError(404, 'not_found_error', 'model: claude-nope'), 'invalid_request'],
    ['connection reset', { kind: 'reset' }, 'network'],
  ];
  it.each(cases)('%s → %s, one request, no retry when maxRetries is 0', async (_label, reply, errorClass) => {
    server.enqueue(reply);
    const error = await setup({ maxRetries: 0 }).provider.complete(simple()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ errorClass, retryCount: 0 });
    expect(server.requests).toHaveLength(1);
  });

  it('abort while the request is in flight → cancelled, not retried', async () => {
    server.enqueue({ kind: 'hang' });
    const controller = new AbortController();
    const pending = setup().provider.complete(simple(), controller.signal).catch((e: unknown) => e);
    await server.received(1);
    controller.abort();
    expect(await pending).toMatchObject({ errorClass: 'cancelled', retryCount: 0 });
    expect(server.requests).toHaveLength(1);
  });

  it('a per-attempt timeout → network (retryable)', async () => {
    server.enqueue({ kind: 'hang' });
    const error = await setup({ maxRetries: 0, timeoutMs: 50 }).provider.complete(simple()).catch((e: unknown) => e);
    expect(error).toMatchObject({ errorClass: 'network', retryCount: 0 });
  });

  it('sends a large max_tokens without streaming (the SDK would refuse it without an explicit timeout)', async () => {
    await expect(setup().provider.complete(simple({ max_tokens: 64_000 }))).resolves.toMatchObject({ stop_reason: 'end_turn' });
    expect(server.requests[0]!.body).toMatchObject({ max_tokens: 64_000 });
  });

  it('an already-aborted signal → cancelled without a request', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(setup().provider.complete(simple(), controller.signal)).rejects.toMatchObject({ errorClass: 'cancelled' });
    expect(server.requests).toHaveLength(0);
  });
});

describe('anthropic adapter: retries', () => {
  it('retries 500 and 529 with full-jitter backoff, then succeeds', async () => {
    server.enqueue(anthropicError(500, 'api_error', 'boom'), anthropicError(529, 'overloaded_error', 'Overloaded'));
    const { provider, sleeps } = setup();
    const r = await provider.complete(simple());
    expect(r.stop_reason).toBe('end_turn');
    expect(sleeps).toEqual([backoff(0, DEFAULT_BACKOFF, () => 0.5), backoff(1, DEFAULT_BACKOFF, () => 0.5)]);
    expect(sleeps).toEqual([500, 1000]);
    expect(server.requests).toHaveLength(3);
    expect(server.requests.map((q) => q.rawBody)).toEqual(Array(3).fill(server.requests[0]!.rawBody));
  });

  it('gives up after maxRetries (default 4) with the retry count on the error', async () => {
    for (let i = 0; i < 5; i++) server.enqueue(anthropicError(529, 'overloaded_error', 'Overloaded'));
    const { provider, sleeps } = setup();
    const error = await provider.complete(simple()).catch((e: unknown) => e);
    expect(error).toMatchObject({ errorClass: 'server_error', retryCount: 4 });
    expect((error as Error).message).toMatch(/after 4 retries/);
    expect(server.requests).toHaveLength(5);
    expect(sleeps).toEqual([500, 1000, 2000, 4000]);
  });

  it('retries a connection reset as a network failure', async () => {
    server.enqueue({ kind: 'reset' });
    const { provider, sleeps } = setup({ maxRetries: 1 });
    await expect(provider.complete(simple())).resolves.toMatchObject({ stop_reason: 'end_turn' });
    expect(sleeps).toHaveLength(1);
    expect(server.requests).toHaveLength(2);
  });

  it.each([
    ['retry-after: 2', { 'retry-after': '2' }, 2000],
    ['retry-after-ms: 1500', { 'retry-after-ms': '1500' }, 1500],
    ['retry-after as an HTTP date 3 s ahead', { 'retry-after': new Date(START_US / 1000 + 3000).toUTCString() }, 3000],
    ['retry-after: 3600 (capped)', { 'retry-after': '3600' }, 60_000],
  ])('a 429 with %s waits exactly that', async (_label, headers, wait) => {
    server.enqueue(anthropicError(429, 'rate_limit_error', 'slow down', headers));
    const { provider, sleeps } = setup();
    await provider.complete(simple());
    expect(sleeps).toEqual([wait]);
  });

  it('never retries an auth failure; the message names ANTHROPIC_API_KEY, never the key', async () => {
    server.enqueue(anthropicError(401, 'authentication_error', 'invalid x-api-key'));
    const { provider, sleeps } = setup();
    const error = (await provider.complete(simple()).catch((e: unknown) => e)) as ProviderError;
    expect(error).toMatchObject({ errorClass: 'auth', retryCount: 0 });
    expect(error.message).toContain('ANTHROPIC_API_KEY');
    expect(error.message).not.toContain(KEY);
    expect(sleeps).toEqual([]);
    expect(server.requests).toHaveLength(1);
  });

  it('redacts key values the server echoes in its error body', async () => {
    const planted = 'sk-ant-api03-PLANTEDsecret987654321';
    server.enqueue(anthropicError(400, 'invalid_request_error', `bad header near ${planted} and ${KEY}; Authorization: Bearer abcdefghijklmnop`));
    const error = (await setup().provider.complete(simple()).catch((e: unknown) => e)) as ProviderError;
    expect(error.errorClass).toBe('invalid_request');
    expect(error.message).not.toContain(planted);
    expect(error.message).not.toContain(KEY);
    expect(error.message).not.toContain('abcdefghijklmnop');
    expect(error.message).toContain('[REDACTED]');
  });

  it('stops retrying when aborted during a backoff wait', async () => {
    server.enqueue(anthropicError(500, 'api_error', 'boom'));
    const controller = new AbortController();
    const sleep: Sleep = (ms, signal) => {
      controller.abort();
      return timerSleep(ms, signal);
    };
    const error = await setup({ sleep }).provider.complete(simple(), controller.signal).catch((e: unknown) => e);
    expect(error).toMatchObject({ errorClass: 'cancelled', retryCount: 0 });
    expect(server.requests).toHaveLength(1);
  });
});
