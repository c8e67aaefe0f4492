import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createVirtualClock } from '../../core/clock.ts';
import { loadModelRegistry } from '../../models/model-registry.ts';
import type { Message, ToolUseBlock } from '../../types/content.ts';
import type { CanonicalRequest, ToolSpec } from '../../types/request.ts';
import { openaiCompletion, openaiError, openaiText, openaiToolCalls, startFakeOpenAI, type LoopbackServer, type ScriptedReply } from '../../../test/support/loopback/index.ts';
import { describeProviderContract } from '../provider-contract.ts';
import { ProviderError, type ProviderErrorClass } from '../provider.ts';
import type { Sleep } from '../retry.ts';
import { COMPATIBLE_DEFAULT_CAPABILITIES, createOpenAIProvider, type OpenAIProviderOptions } from './openai-provider.ts';
import { INVALID_ARGUMENTS_KEY, invalidToolArguments } from './tool-arguments.ts';

const registry = loadModelRegistry();
const KEY = 'sk-proj-TESTKEY0123456789abcdefXYZ';
const START_US = 1_767_225_600_000_000; // 2026-01-01T00:00:00Z

let server: LoopbackServer;
beforeEach(async () => {
  server = await startFakeOpenAI();
});
afterEach(async () => {
  await server.close();
});

/** A provider on the loopback server whose sleeps are recorded (and advance the virtual clock) instead of waited. */
function setup(options: Partial<OpenAIProviderOptions> = {}) {
  const sleeps: number[] = [];
  const clock = createVirtualClock(START_US);
  const sleep: Sleep = async (ms) => {
    sleeps.push(ms);
    clock.advanceUs(ms * 1000);
  };
  const provider = createOpenAIProvider({ apiKey: KEY, baseURL: server.baseURL, registry, providerName: 'openai', sleep, random: () => 0.5, clock, ...options });
  return { provider, sleeps };
}

const user = (text: string): Message => ({ role: 'user', content: [{ type: 'text', text }] });
const simple = (extra: Partial<CanonicalRequest> = {}): CanonicalRequest => ({
  model: 'gpt-5',
  system: 'Be brief.',
  system_volatile: null,
  tools: [],
  messages: [user('Hi')],
  temperature: 0,
  max_tokens: 256,
  ...extra,
});
const bodyOf = (i: number) => server.requests[i]!.body as Record<string, unknown> & { messages: Record<string, unknown>[] };

describeProviderContract('openai (SDK → loopback Chat Completions)', () => ({ provider: setup().provider, model: 'gpt-5', expectCacheHitOnRepeat: true }));
describeProviderContract('openai-compatible (SDK → loopback Chat Completions)', () => ({
  provider: setup({ providerName: 'openai-compatible', apiKey: '' }).provider,
  model: 'ollama:qwen2.5-coder:7b',
}));

describe('openai adapter: a multi-turn exchange with a tool cycle, on the wire', () => {
  const STABLE = 'You are a careful coding agent. Keep edits minimal.';
  const READ: ToolSpec = { name: 'read_file', description: 'Read a file.', input_schema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } };
  const WRITE: ToolSpec = { name: 'write_file', description: 'Write a file.', input_schema: { type: 'object', properties: { path: { type: 'string' }, text: { type: 'string' } } } };
  const wireTools = [
    { type: 'function', function: { name: 'read_file', description: 'Read a file.', parameters: READ.input_schema } },
    { type: 'function', function: { name: 'write_file', description: 'Write a file.', parameters: WRITE.input_schema } },
  ];
  const request = (messages: Message[], volatile: string): CanonicalRequest => ({
    model: 'openai:gpt-5',
    system: STABLE,
    system_volatile: volatile,
    tools: [READ, WRITE],
    messages: structuredClone(messages),
    temperature: 0.2,
    max_tokens: 2048,
    metadata: { workload: 'never-on-the-wire' },
  });

  it('sends one system message (stable then volatile), tools in order, a byte-stable prefix, and normalises cached usage', async () => {
    server.enqueue(
      openaiToolCalls([{ name: 'read_file', arguments: '{"path":"a.ts"}', id: 'call_wire_1' }], { text: 'Reading.', usage: { prompt_tokens: 4130, completion_tokens: 9 } }),
      openaiText('Fixed.', { prompt_tokens: 4150, completion_tokens: 12, cached_tokens: 4096 }),
      openaiText('Test added.', { prompt_tokens: 4190, completion_tokens: 7, cached_tokens: 4096 }),
    );
    const { provider } = setup();
    const messages: Message[] = [user('Fix the bug in a.ts')];

    const r1 = await provider.complete(request(messages, 'Memory: turn 1.'));
    expect(r1.stop_reason).toBe('tool_use');
    expect(r1.model).toBe('openai:gpt-5');
    expect(r1.request_id).toMatch(/^chatcmpl-loopback-/);
    expect(r1.usage).toEqual({ input_tokens: 4130, output_tokens: 9, cached_input_tokens: 0, cache_creation_input_tokens: 0 });
    const use = r1.content[1] as ToolUseBlock;
    expect(r1.content[0]).toEqual({ type: 'text', text: 'Reading.' });
    expect(use).toMatchObject({ type: 'tool_use', name: 'read_file', input: { path: 'a.ts' } });
    expect(use.id).toMatch(/^tu_[0-9A-HJKMNP-TV-Z]{26}$/);

    messages.push({ role: 'assistant', content: r1.content }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: 'const a = 1;', is_error: false }] });
    const r2 = await provider.complete(request(messages, 'Memory: turn 1.'));
    expect(r2).toMatchObject({ stop_reason: 'end_turn', content: [{ type: 'text', text: 'Fixed.' }] });
    // prompt_tokens includes the cached ones: uncached = 4150 − 4096.
    expect(r2.usage).toEqual({ input_tokens: 54, output_tokens: 12, cached_input_tokens: 4096, cache_creation_input_tokens: 0 });

    messages.push({ role: 'assistant', content: r2.content }, user('Now add a test.'));
    await provider.complete(request(messages, 'Memory: turn 2, a.ts edited.'));

    const [b1, b2, b3] = server.requests.map((r) => r.body);
    const system = (volatile: string) => ({ role: 'system', content: `${STABLE}\n\n${volatile}` });
    const turn1 = [{ role: 'user', content: 'Fix the bug in a.ts' }];
    const cycle = [
      ...turn1,
      { role: 'assistant', content: 'Reading.', tool_calls: [{ id: use.id, type: 'function', function: { name: 'read_file', arguments: '{"path":"a.ts"}' } }] },
      { role: 'tool', tool_call_id: use.id, content: 'const a = 1;' },
    ];
    const base = { model: 'gpt-5', tools: wireTools, temperature: 0.2, max_completion_tokens: 2048 };
    expect(b1).toEqual({ ...base, messages: [system('Memory: turn 1.'), ...turn1] });
    expect(b2).toEqual({ ...base, messages: [system('Memory: turn 1.'), ...cycle] });
    expect(b3).toEqual({
      ...base,
      messages: [system('Memory: turn 2, a.ts edited.'), ...cycle, { role: 'assistant', content: 'Fixed.' }, { role: 'user', content: 'Now add a test.' }],
    });

    // The body opens with the same bytes every turn, up to the end of the stable system text; the tools are the same bytes too.
    const opening = `{"model":"gpt-5","messages":[{"role":"system","content":${JSON.stringify(STABLE + '\n\n').slice(0, -1)}`;
    const toolBytes = `"tools":${JSON.stringify(wireTools)}`;
    for (const { rawBody } of server.requests) {
      expect(rawBody.startsWith(opening)).toBe(true);
      expect(rawBody).toContain(toolBytes);
      expect(rawBody).not.toContain('never-on-the-wire');
    }
    expect(server.requests[0]!.headers.authorization).toBe(`Bearer ${KEY}`);
  });

  it('sends the system message as stable or volatile alone when only one is set, and none when neither is', async () => {
    const { provider } = setup();
    await provider.complete(simple({ system: 'Stable only.' }));
    await provider.complete(simple({ system: null, system_volatile: 'Volatile only.' }));
    await provider.complete(simple({ system: null }));
    expect(bodyOf(0).messages[0]).toEqual({ role: 'system', content: 'Stable only.' });
    expect(bodyOf(1).messages[0]).toEqual({ role: 'system', content: 'Volatile only.' });
    expect(bodyOf(2).messages).toEqual([{ role: 'user', content: 'Hi' }]);
    expect(bodyOf(2)).not.toHaveProperty('tools');
  });

  it('marks a failed tool result in the tool message text (Chat Completions has no is_error)', async () => {
    const messages: Message[] = [
      user('Read it'),
      { role: 'assistant', content: [{ type: 'tool_use', id: 'tu_01J0000000000000000000000A', name: 'read_file', input: { path: 'x' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'tu_01J0000000000000000000000A', content: 'no such file', is_error: true }] },
    ];
    await setup().provider.complete(simple({ messages }));
    expect(bodyOf(0).messages.slice(2)).toEqual([
      { role: 'assistant', content: null, tool_calls: [{ id: 'tu_01J0000000000000000000000A', type: 'function', function: { name: 'read_file', arguments: '{"path":"x"}' } }] },
      { role: 'tool', tool_call_id: 'tu_01J0000000000000000000000A', content: 'Error: no such file' },
    ]);
  });
});

describe('openai adapter: tool-call arguments', () => {
  it('keeps invalid JSON arguments raw for the dispatcher to reject, and sends them back unchanged', async () => {
    const raw = '{"path": "a.ts",';
    server.enqueue(openaiToolCalls([{ name: 'read_file', arguments: raw }]));
    const { provider } = setup();
    const r = await provider.complete(simple({ tools: [{ name: 'read_file', description: 'Read.', input_schema: { type: 'object' } }] }));
    const use = r.content[0] as ToolUseBlock;
    expect(r.stop_reason).toBe('tool_use');
    expect(use.input).toEqual({ [INVALID_ARGUMENTS_KEY]: raw });
    expect(invalidToolArguments(use.input)).toBe(raw);

    const messages: Message[] = [user('Hi'), { role: 'assistant', content: r.content }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: 'invalid input', is_error: true }] }];
    await provider.complete(simple({ messages }));
    expect(bodyOf(1).messages[2]).toMatchObject({ tool_calls: [{ function: { name: 'read_file', arguments: raw } }] });
  });

  it('reads empty arguments as an empty input', async () => {
    server.enqueue(openaiToolCalls([{ name: 'list', arguments: '' }]));
    const r = await setup().provider.complete(simple());
    expect(r.content).toMatchObject([{ type: 'tool_use', name: 'list', input: {} }]);
  });
});

describe('openai adapter: response mapping', () => {
  it.each([
    ['stop', 'end_turn'],
    ['length', 'max_tokens'],
    ['content_filter', 'end_turn'],
  ])('maps finish_reason %s to %s', async (finish, canonical) => {
    server.enqueue(openaiCompletion({ content: 'x' }, finish, { prompt_tokens: 3, completion_tokens: 1 }));
    expect((await setup().provider.complete(simple())).stop_reason).toBe(canonical);
  });

  it('treats tool calls labelled `stop` (older Ollama) as tool_use', async () => {
    server.enqueue(openaiToolCalls([{ name: 'echo', arguments: '{"text":"x"}' }], { finish_reason: 'stop' }));
    expect((await setup().provider.complete(simple())).stop_reason).toBe('tool_use');
  });

  it('reports zero usage when the server sends none, and a refusal as text', async () => {
    server.enqueue(openaiCompletion({ content: null, refusal: 'I cannot help with that.' }, 'stop', null));
    const r = await setup().provider.complete(simple());
    expect(r.usage).toEqual({ input_tokens: 0, output_tokens: 0, cached_input_tokens: 0, cache_creation_input_tokens: 0 });
    expect(r.content).toEqual([{ type: 'text', text: 'I cannot help with that.' }]);
  });
});

describe('openai-compatible adapter', () => {
  it('passes the model id after the prefix as is, uses max_tokens, and declares conservative capabilities', async () => {
    const { provider } = setup({ providerName: 'openai-compatible', apiKey: '' });
    const r = await provider.complete(simple({ model: 'ollama:qwen2.5-coder:7b' }));
    expect(provider.name).toBe('openai-compatible');
    expect(r.model).toBe('ollama:qwen2.5-coder:7b');
    expect(bodyOf(0)).toMatchObject({ model: 'qwen2.5-coder:7b', max_tokens: 256 });
    expect(bodyOf(0)).not.toHaveProperty('max_completion_tokens');
    expect(provider.capabilities('ollama:qwen2.5-coder:7b')).toEqual({ tools: true, vision: false, prompt_caching: false, system_prompt: true, context_window: 32768 });
    expect(COMPATIBLE_DEFAULT_CAPABILITIES.context_window).toBe(32768);
  });

  it('takes capabilities from the registry for a known model', () => {
    const { provider } = setup({ providerName: 'openai-compatible' });
    expect(provider.capabilities('gpt-5-mini')).toEqual(registry.resolve('openai:gpt-5-mini').capabilities);
  });

  it('redacts a key that looks like no known key format when the server echoes it', async () => {
    const token = 'local-token-7f3a9c21e8';
    server.enqueue(openaiError(401, `token ${token} rejected`));
    const error = (await setup({ providerName: 'openai-compatible', apiKey: token }).provider.complete(simple()).catch((e: unknown) => e)) as ProviderError;
    expect(error.errorClass).toBe('auth');
    expect(error.message).not.toContain(token);
  });

  it('requires a baseURL', () => {
    expect(() => createOpenAIProvider({ apiKey: '', registry, providerName: 'openai-compatible' })).toThrow(/baseURL/);
  });
});

describe('openai adapter: capabilities and setup', () => {
  it('declares the registry capabilities and refuses models it does not serve', () => {
    const { provider } = setup();
    expect(provider.name).toBe('openai');
    expect(provider.capabilities('gpt-5')).toEqual(registry.resolve('gpt-5').capabilities);
    expect(() => provider.capabilities('haiku')).toThrow(/served by anthropic/);
    expect(() => provider.capabilities('openai:gpt-unknown')).toThrow(ProviderError);
  });

  it('refuses to start without a key, naming the variable', () => {
    expect(() => createOpenAIProvider({ apiKey: '', registry, providerName: 'openai' })).toThrow(/OPENAI_API_KEY/);
  });
});

describe('openai adapter: error classes', () => {
  const cases: [string, ScriptedReply, ProviderErrorClass][] = [
    ['429', openaiError(429, 'Rate limit reached for gpt-5', { type: 'requests', code: 'rate_limit_exceeded' }), 'rate_limit'],
    ['401', openaiError(401, 'Incorrect API key provided: sk-proj-****XYZ', { code: 'invalid_api_key' }), 'auth'],
    ['403', openaiError(403, 'You are not allowed to use this model', { type: 'permission_error' }), 'auth'],
    ['500', openaiError(500, 'The server had an error while processing your request', { type: 'server_error' }), 'server_error'],
    ['529', openaiError(529, 'Overloaded', { type: 'server_error' }), 'server_error'],
    [
      '400 context length',
      openaiError(400, "This model's maximum context length is 400000 tokens. However, your messages resulted in 410000 tokens.", { code: 'context_length_exceeded' }),
      'context_overflow',
    ],
    ['400 other', openaiError(400, "Invalid value for 'temperature'", { code: 'invalid_value' }), 'invalid_request'],
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
});

describe('openai adapter: retries', () => {
  it('retries 429 / 500 / reset with backoff, honouring retry-after: 2', async () => {
    server.enqueue(openaiError(429, 'slow down', { headers: { 'retry-after': '2' } }), openaiError(500, 'boom'), { kind: 'reset' });
    const { provider, sleeps } = setup();
    const r = await provider.complete(simple());
    expect(r.stop_reason).toBe('end_turn');
    expect(r.latency_ms).toBe(2000 + 1000 + 2000);
    expect(sleeps).toEqual([2000, 1000, 2000]);
    expect(server.requests).toHaveLength(4);
  });

  it('gives up after maxRetries with the count on the error', async () => {
    for (let i = 0; i < 3; i++) server.enqueue(openaiError(503, 'unavailable'));
    const error = await setup({ maxRetries: 2 }).provider.complete(simple()).catch((e: unknown) => e);
    expect(error).toMatchObject({ errorClass: 'server_error', retryCount: 2 });
    expect(server.requests).toHaveLength(3);
  });

  it('never retries an auth failure; the message names OPENAI_API_KEY and hides every key', async () => {
    const planted = 'sk-proj-PLANTEDsecret987654321';
    server.enqueue(openaiError(401, `Incorrect API key provided: ${KEY}. Also seen: ${planted}`, { code: 'invalid_api_key' }));
    const { provider, sleeps } = setup();
    const error = (await provider.complete(simple()).catch((e: unknown) => e)) as ProviderError;
    expect(error).toMatchObject({ errorClass: 'auth', retryCount: 0 });
    expect(error.message).toContain('OPENAI_API_KEY');
    expect(error.message).not.toContain(KEY);
    expect(error.message).not.toContain(planted);
    expect(sleeps).toEqual([]);
    expect(server.requests).toHaveLength(1);
  });
});
