// The one place a failed provider call becomes a classified, redacted ProviderError.
import { APIConnectionError as AnthropicConnectionError, APIUserAbortError as AnthropicAbortError } from '@anthropic-ai/sdk';
import { APIConnectionError as OpenAIConnectionError, APIUserAbortError as OpenAIAbortError } from 'openai';
import { ProviderError, type ProviderErrorClass } from './provider.ts';
import { responseTooLargeIn } from './response-cap.ts';
import { redactSecrets } from './redact-secrets.ts';

export { redactSecrets };

/** The classes our retry policy retries; every other class fails at once. */
export const RETRYABLE_CLASSES: ReadonlySet<ProviderErrorClass> = new Set<ProviderErrorClass>(['rate_limit', 'server_error', 'network']);

// Wording used by Anthropic, OpenAI, vLLM, llama.cpp and Ollama when a request exceeds the window.
const CONTEXT_OVERFLOW =
  /context[ _-]?(length|window)|prompt is too long|maximum context|too many (input )?tokens|exceeds? (the )?(model'?s? )?(maximum|context)|input length and .?max_tokens.? exceed/i;

const NETWORK_CODES = /^(ECONNRESET|ECONNREFUSED|ECONNABORTED|ETIMEDOUT|EPIPE|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH|UND_ERR_\w+)$/;

/** Classifies an HTTP error status; `detail` (message and code) only decides whether a 4xx is a context overflow. */
export function classifyStatus(status: number, detail = ''): ProviderErrorClass {
  if (status === 429) return 'rate_limit';
  if (status === 401 || status === 403) return 'auth';
  if (status === 408) return 'network';
  if (status >= 500 && status <= 599) return 'server_error';
  if (status >= 400 && status <= 499) return CONTEXT_OVERFLOW.test(detail) ? 'context_overflow' : 'invalid_request';
  return 'other';
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;

function statusOf(e: unknown): number | undefined {
  return isObject(e) && typeof e.status === 'number' ? e.status : undefined;
}

function isAbort(e: unknown): boolean {
  return e instanceof AnthropicAbortError || e instanceof OpenAIAbortError || (isObject(e) && e.name === 'AbortError');
}

function isConnectionFailure(e: unknown): boolean {
  if (e instanceof AnthropicConnectionError || e instanceof OpenAIConnectionError) return true;
  // A bare fetch failure (undici) carries the socket error as its cause.
  for (let c: unknown = e, depth = 0; isObject(c) && depth < 4; c = c.cause, depth++) {
    if (typeof c.code === 'string' && NETWORK_CODES.test(c.code)) return true;
    if (c instanceof TypeError && c.message === 'fetch failed') return true;
  }
  return false;
}

/**
 * The server's own words: Anthropic's body is `{type:'error', error:{type, message}}`, OpenAI's SDK
 * keeps the inner `{message, type, code}`; either falls back to the error's message, with the
 * cause chain for network failures ("Connection error. (fetch failed: other side closed)").
 */
function detailOf(e: unknown): string {
  if (!isObject(e)) return String(e);
  const body = e.error;
  if (isObject(body)) {
    const inner = isObject(body.error) ? body.error : body;
    const message = typeof inner.message === 'string' ? inner.message : '';
    const code = typeof inner.code === 'string' ? inner.code : typeof inner.type === 'string' ? inner.type : '';
    if (message || code) return [code, message].filter(Boolean).join(': ');
  }
  let text = typeof e.message === 'string' ? e.message.replace(/^\d{3} /, '') : String(e);
  const causes: string[] = [];
  for (let c: unknown = e.cause, depth = 0; isObject(c) && depth < 3; c = c.cause, depth++) {
    if (typeof c.message === 'string' && c.message) causes.push(c.message);
  }
  if (causes.length > 0) text += ` (${causes.join(': ')})`;
  return text;
}

/** Classifies any failure of a provider call: either SDK's errors, an HTTP status, a network failure, an abort. */
export function classifyError(e: unknown): ProviderErrorClass {
  if (e instanceof ProviderError) return e.errorClass;
  // Checked before the connection test: the SDKs wrap a body that failed mid-read as a connection error, which would be retried.
  if (responseTooLargeIn(e)) return 'response_too_large';
  if (isAbort(e)) return 'cancelled';
  const status = statusOf(e);
  if (status !== undefined) return classifyStatus(status, detailOf(e));
  if (isConnectionFailure(e)) return 'network';
  // A 2xx body that is not JSON at all: the SDK's parse fails.
  if (e instanceof SyntaxError) return 'malformed_response';
  return 'other';
}

/** Who failed, for messages: the provider name, the variable its key comes from, and the values to redact. */
export interface ProviderErrorContext {
  provider: string;
  /** e.g. `ANTHROPIC_API_KEY`; named (never its value) when the key is refused. */
  keyVariable: string;
  /** Exact secret values (the API key) to strip from every message. */
  secrets: readonly string[];
}

const LABELS: Record<ProviderErrorClass, string> = {
  rate_limit: 'rate limited',
  auth: 'authentication failed',
  server_error: 'server error',
  network: 'network failure',
  context_overflow: 'request exceeds the context window',
  invalid_request: 'invalid request',
  cancelled: 'request cancelled',
  malformed_response: 'malformed response',
  response_too_large: 'response too large',
  other: 'unexpected failure',
};

const MAX_DETAIL = 500;

/**
 * The one factory from a failed call to a ProviderError: classified, described with the server's
 * words, redacted. Auth failures name the key variable so the user knows what to fix.
 */
export function toProviderError(e: unknown, ctx: ProviderErrorContext, retryCount: number): ProviderError {
  if (e instanceof ProviderError) return new ProviderError(redactSecrets(e.message, ctx.secrets), e.errorClass, retryCount);
  const errorClass = classifyError(e);
  const status = statusOf(e);
  let detail = (responseTooLargeIn(e)?.message ?? detailOf(e)).replace(/\s+/g, ' ').trim().replace(/\.$/, '');
  if (detail.length > MAX_DETAIL) detail = `${detail.slice(0, MAX_DETAIL)}…`;
  const where = status !== undefined ? ` (HTTP ${status})` : '';
  const retries = retryCount > 0 ? ` after ${retryCount} ${retryCount === 1 ? 'retry' : 'retries'}` : '';
  const hint = errorClass === 'auth' ? ` Check ${ctx.keyVariable}.` : '';
  const message = `${ctx.provider}: ${LABELS[errorClass]}${where}${retries}${detail ? `: ${detail}` : ''}.${hint}`;
  return new ProviderError(redactSecrets(message, ctx.secrets), errorClass, retryCount);
}
