import { APIConnectionError, APIUserAbortError, RateLimitError } from 'openai';
import { describe, expect, it } from 'vitest';
import { classifyError, classifyStatus, redactSecrets, toProviderError } from './errors.ts';
import { ProviderError } from './provider.ts';

describe('classifyStatus', () => {
  it.each([
    [429, '', 'rate_limit'],
    [401, '', 'auth'],
    [403, '', 'auth'],
    [408, '', 'network'],
    [500, '', 'server_error'],
    [503, '', 'server_error'],
    [529, '', 'server_error'],
    [400, 'prompt is too long: 210000 tokens > 200000 maximum', 'context_overflow'],
    [400, "context_length_exceeded: This model's maximum context length is 128000 tokens", 'context_overflow'],
    [400, 'input length and `max_tokens` exceed context limit: 198000 + 8192 > 200000', 'context_overflow'],
    [400, 'messages: text content blocks must be non-empty', 'invalid_request'],
    [404, 'model not found', 'invalid_request'],
    [422, '', 'invalid_request'],
    [302, '', 'other'],
  ] as const)('%d %s → %s', (status, detail, expected) => {
    expect(classifyStatus(status, detail)).toBe(expected);
  });
});

describe('classifyError', () => {
  it('reads SDK errors, bare fetch failures, aborts and our own errors', () => {
    expect(classifyError(new RateLimitError(429, { message: 'slow' }, undefined, new Headers()))).toBe('rate_limit');
    expect(classifyError(new APIConnectionError({ message: 'Connection error.' }))).toBe('network');
    expect(classifyError(new APIUserAbortError())).toBe('cancelled');
    expect(classifyError(new TypeError('fetch failed', { cause: Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }) }))).toBe('network');
    expect(classifyError(new DOMException('The operation was aborted.', 'AbortError'))).toBe('cancelled');
    expect(classifyError(new ProviderError('x', 'context_overflow'))).toBe('context_overflow');
    expect(classifyError(new Error('something odd'))).toBe('other');
  });
});

describe('redactSecrets', () => {
  it.each([
    ['key sk-ant-api03-AbCdEf123456-_xyz here', 'key [REDACTED] here'],
    ['Incorrect API key provided: sk-proj-****abcd.', 'Incorrect API key provided: [REDACTED].'],
    ['Authorization: Bearer eyJhbGciOi.abc.def', 'Authorization: Bearer [REDACTED]'],
    ['{"x-api-key": "abc123def456"}', '{"x-api-key": "[REDACTED]"}'],
    ['GET https://user:pa55word@proxy.local/v1', 'GET https://[REDACTED]@proxy.local/v1'],
    ['nothing secret in 401 here', 'nothing secret in 401 here'],
  ])('%s', (input, expected) => {
    expect(redactSecrets(input)).toBe(expected);
  });

  it('removes exact secret values whatever their shape', () => {
    expect(redactSecrets('token ollama-7f3a9c21 rejected', ['ollama-7f3a9c21'])).toBe('token [REDACTED] rejected');
  });
});

describe('toProviderError', () => {
  const ctx = { provider: 'openai', keyVariable: 'OPENAI_API_KEY', secrets: ['sk-proj-REALKEY1234567890'] };

  it('names the key variable on auth failures, with the status and the server message, redacted', () => {
    const e = Object.assign(new Error('401 bad key'), { status: 401, error: { message: 'Incorrect API key provided: sk-proj-REALKEY1234567890', code: 'invalid_api_key' } });
    const p = toProviderError(e, ctx, 0);
    expect(p.errorClass).toBe('auth');
    expect(p.message).toBe('openai: authentication failed (HTTP 401): invalid_api_key: Incorrect API key provided: [REDACTED]. Check OPENAI_API_KEY.');
  });

  it('says how many retries were made', () => {
    const p = toProviderError(Object.assign(new Error('503'), { status: 503 }), ctx, 3);
    expect(p).toMatchObject({ errorClass: 'server_error', retryCount: 3 });
    expect(p.message).toBe('openai: server error (HTTP 503) after 3 retries: 503.');
  });
});
