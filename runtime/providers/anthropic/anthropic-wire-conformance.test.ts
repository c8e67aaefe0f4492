import fc from 'fast-check';
import type { Message as WireMessage } from '@anthropic-ai/sdk/resources/messages';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createIdFactory } from '../../core/ids.ts';
import { loadModelRegistry } from '../../models/model-registry.ts';
import type { ContentBlock, Message } from '../../types/content.ts';
import type { CanonicalRequest } from '../../types/request.ts';
import { cacheBreakpoints, errorsOf, REQUEST_SCHEMA, RESPONSE_SCHEMA, sdkAnthropicVersion, validateRequest, validateResponse } from '../../../test/support/anthropic-wire-schema.ts';
import { startFakeAnthropic, type LoopbackServer } from '../../../test/support/loopback/index.ts';
import { ProviderError } from '../provider.ts';
import { createAnthropicProvider } from './anthropic-provider.ts';
import { toAnthropicParams } from './anthropic-request.ts';
import { fromAnthropicMessage } from './anthropic-response.ts';

const ids = createIdFactory(() => 1_767_225_600_000);
const examples = RESPONSE_SCHEMA.examples as Record<string, unknown>[];
const example = (id: string) => structuredClone(examples.find((e) => e.id === id)!) as unknown as WireMessage;

// Canonical requests as the agent loop builds them: non-empty texts, tool cycles, both system segments.
const text = fc.string({ minLength: 1, maxLength: 40 }).filter((s) => s.trim().length > 0);
const toolName = fc.stringMatching(/^[a-z_]{1,20}$/);
const toolId = fc.stringMatching(/^tu_[0-9A-Z]{26}$/);
const block: fc.Arbitrary<ContentBlock> = fc.oneof(
  text.map((t) => ({ type: 'text' as const, text: t })),
  fc.record({ type: fc.constant('tool_use' as const), id: toolId, name: toolName, input: fc.dictionary(toolName, fc.jsonValue()) }),
  fc.record({ type: fc.constant('tool_result' as const), tool_use_id: toolId, content: fc.string(), is_error: fc.boolean() }),
);
const message: fc.Arbitrary<Message> = fc.record({ role: fc.constantFrom('user' as const, 'assistant' as const), content: fc.array(block, { minLength: 1, maxLength: 4 }) });
const request: fc.Arbitrary<CanonicalRequest> = fc.record({
  model: fc.constant('anthropic:claude-haiku-4-5'),
  system: fc.option(text, { nil: null }),
  system_volatile: fc.option(text, { nil: null }),
  tools: fc.array(fc.record({ name: toolName, description: fc.string(), input_schema: fc.constant({ type: 'object', properties: { path: { type: 'string' } }, required: ['path'] }) }), { maxLength: 5 }),
  messages: fc.array(message, { minLength: 1, maxLength: 6 }),
  temperature: fc.double({ min: 0, max: 1, noNaN: true }),
  max_tokens: fc.integer({ min: 1, max: 64_000 }),
});

describe('Anthropic requests against the transcribed Messages API schema', () => {
  it('every request the adapter builds validates, with at most 4 cache breakpoints', () => {
    fc.assert(
      fc.property(request, (r) => {
        const body = toAnthropicParams(r, 'claude-haiku-4-5');
        expect(validateRequest(body), errorsOf(validateRequest).join('; ')).toBe(true);
        expect(cacheBreakpoints(body)).toBeLessThanOrEqual(4);
      }),
      { numRuns: 300 },
    );
  });

  it('the schema refuses what the API refuses (so a passing request means something)', () => {
    const good = { model: 'claude-haiku-4-5', max_tokens: 100, messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] };
    expect(validateRequest(good)).toBe(true);
    expect(validateRequest({ ...good, stop_sequences: ['###', '\nHuman:'] })).toBe(true);
    const bad: Record<string, unknown>[] = [
      { ...good, max_tokens: undefined },
      { ...good, max_tokens: 0 },
      { ...good, stop_sequences: [''] },
      { ...good, stop_sequence: ['x'] },
      { ...good, temperature: 1.5 },
      { ...good, messages: [{ role: 'user', content: [{ type: 'text', text: '' }] }] },
      { ...good, messages: [{ role: 'system', content: 'x' }] },
      { ...good, system: [{ type: 'text', text: 'x', cache_control: { type: 'persistent' } }] },
      { ...good, tools: [{ name: 'read file', input_schema: { type: 'object' } }] },
      { ...good, messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'tu 1', content: 'x' }] }] },
    ];
    for (const b of bad) expect(validateRequest(JSON.parse(JSON.stringify(b))), JSON.stringify(b)).toBe(false);
    expect(cacheBreakpoints({ system: Array.from({ length: 5 }, () => ({ type: 'text', text: 'x', cache_control: { type: 'ephemeral' } })) })).toBe(5);
  });
});

describe('Anthropic responses: every example of the schema parses', () => {
  it.each(examples.map((e) => [e.id as string, e]))('%s validates and maps to a canonical response', (_id, body) => {
    expect(validateResponse(body), errorsOf(validateResponse).join('; ')).toBe(true);
    const r = fromAnthropicMessage(structuredClone(body) as unknown as WireMessage, ids);
    expect(['end_turn', 'max_tokens', 'stop_sequence', 'tool_use']).toContain(r.stop_reason);
    for (const b of r.content) expect(['text', 'tool_use']).toContain(b.type);
  });

  it('keeps text and tool calls of a response with every optional field, and reads its usage', () => {
    const r = fromAnthropicMessage(example('msg_every_optional_field'), ids);
    expect(r.content.map((b) => b.type)).toEqual(['text', 'tool_use']);
    expect(r.content[1]).toMatchObject({ type: 'tool_use', name: 'read_file', input: { path: 'pager.py' } });
    expect(r.stop_reason).toBe('tool_use');
    expect(r.usage).toEqual({ input_tokens: 40, output_tokens: 90, cached_input_tokens: 1200, cache_creation_input_tokens: 4858 });
  });

  it('counts cache writes from the usage.cache_creation breakdown when the total is null', () => {
    expect(fromAnthropicMessage(example('msg_cache_creation_only'), ids).usage.cache_creation_input_tokens).toBe(500);
  });

  it('maps stop reasons it does not know to end_turn, and the documented ones as the adapter promises', () => {
    const stop = (id: string) => fromAnthropicMessage(example(id), ids).stop_reason;
    expect(stop('msg_unknown_stop_reason')).toBe('end_turn');
    expect(stop('msg_stop_sequence')).toBe('stop_sequence');
    expect(stop('msg_pause_turn')).toBe('end_turn');
    expect(stop('msg_refusal')).toBe('end_turn');
    expect(stop('msg_window_exceeded')).toBe('max_tokens');
    expect(stop('msg_null_stop_reason')).toBe('end_turn');
  });

  it('any other body maps to a canonical response or a malformed_response ProviderError, never a crash', () => {
    fc.assert(
      fc.property(fc.oneof(fc.jsonValue(), fc.record({ content: fc.array(fc.jsonValue()), usage: fc.jsonValue(), stop_reason: fc.jsonValue() })), (body) => {
        try {
          fromAnthropicMessage(body as unknown as WireMessage, ids);
        } catch (e) {
          expect(e).toBeInstanceOf(ProviderError);
          expect((e as ProviderError).errorClass).toBe('malformed_response');
        }
      }),
      { numRuns: 500 },
    );
  });
});

describe('Anthropic adapter on the wire (SDK, loopback)', () => {
  let server: LoopbackServer;
  beforeEach(async () => {
    server = await startFakeAnthropic();
  });
  afterEach(async () => {
    await server.close();
  });
  const provider = () => createAnthropicProvider({ apiKey: 'sk-ant-test', baseURL: server.baseURL, registry: loadModelRegistry(), ids });
  const req: CanonicalRequest = { model: 'anthropic:claude-haiku-4-5', system: 'stable', system_volatile: 'volatile', tools: [{ name: 'read_file', description: 'reads', input_schema: { type: 'object', properties: {} } }], messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }], temperature: 0, max_tokens: 1024 };

  it.each(examples.map((e) => [e.id as string, e]))('the SDK hands %s to the adapter, which maps it', async (_id, body) => {
    server.enqueue({ kind: 'json', body });
    const r = await provider().complete(req);
    expect(r.model).toBe('anthropic:claude-haiku-4-5');
    const sent = server.requests.at(-1)!;
    expect(validateRequest(sent.body), errorsOf(validateRequest).join('; ')).toBe(true);
    const headers = REQUEST_SCHEMA['x-headers'] as { required: string[]; auth_one_of: string[]; anthropic_version_pattern: string };
    for (const h of headers.required) expect(sent.headers[h], h).toBeTruthy();
    expect(sent.headers['anthropic-version']).toMatch(new RegExp(headers.anthropic_version_pattern));
    expect(sent.headers['anthropic-version']).toBe(sdkAnthropicVersion());
    expect(sent.headers['content-type']).toContain('application/json');
    expect(headers.auth_one_of.some((h) => sent.headers[h] === 'sk-ant-test' || sent.headers[h] === 'Bearer sk-ant-test')).toBe(true);
  });

  it('refuses a temperature the API would refuse, before sending', async () => {
    await expect(provider().complete({ ...req, temperature: 1.5 })).rejects.toMatchObject({ errorClass: 'invalid_request' });
    expect(server.requests).toHaveLength(0);
  });
});
