// The agent loop trusts no provider: a canonical response is checked before anything reads it.
import type { ProviderErrorClass } from '../providers/provider.ts';

/** Why a response cannot be used, as an llm.call_failed class and a one-line message. */
export interface ResponseProblem {
  errorClass: Extract<ProviderErrorClass, 'malformed_response' | 'response_too_large'>;
  message: string;
}

const STOP_REASONS = new Set(['end_turn', 'max_tokens', 'stop_sequence', 'tool_use']);
const USAGE_FIELDS = ['input_tokens', 'output_tokens', 'cached_input_tokens', 'cache_creation_input_tokens'] as const;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isCount = (v: unknown): boolean => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
const kind = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v);

/**
 * Null when `r` is a usable CanonicalResponse; else what is wrong with it. Tool inputs may be any
 * JSON value (the dispatcher answers a bad one with tool.input_invalid); text and tool inputs
 * together may not pass `maxBytes` UTF-16 code units of JSON (a bound on what the history keeps).
 */
export function checkResponse(r: unknown, maxBytes: number): ResponseProblem | null {
  const bad = (message: string): ResponseProblem => ({ errorClass: 'malformed_response', message: `malformed response: ${message}` });
  if (!isRecord(r)) return bad(`expected a response object, got ${kind(r)}`);
  if (!Array.isArray(r.content)) return bad(`content should be a list of blocks, got ${kind(r.content)}`);
  if (typeof r.stop_reason !== 'string' || !STOP_REASONS.has(r.stop_reason)) return bad(`unknown stop_reason ${JSON.stringify(r.stop_reason) ?? 'undefined'}`);
  if (!isRecord(r.usage)) return bad(`usage should be an object, got ${kind(r.usage)}`);
  for (const f of USAGE_FIELDS) if (!isCount(r.usage[f])) return bad(`usage.${f} should be a non-negative integer, got ${String(r.usage[f])}`);
  if (typeof r.latency_ms !== 'number' || !Number.isFinite(r.latency_ms) || r.latency_ms < 0) return bad(`latency_ms should be a non-negative number, got ${String(r.latency_ms)}`);
  if (typeof r.model !== 'string' || r.model === '') return bad('model should be a model id');
  let size = 0;
  for (const [i, b] of (r.content as unknown[]).entries()) {
    if (!isRecord(b)) return bad(`content[${i}] should be a block, got ${kind(b)}`);
    if (b.type === 'text') {
      if (typeof b.text !== 'string') return bad(`content[${i}].text should be a string, got ${kind(b.text)}`);
      size += b.text.length;
    } else if (b.type === 'tool_use') {
      if (typeof b.id !== 'string' || b.id === '') return bad(`content[${i}].id should be a tool_use id`);
      if (typeof b.name !== 'string' || b.name === '') return bad(`content[${i}].name should be a tool name`);
      let json: string | undefined;
      try {
        json = JSON.stringify(b.input);
      } catch (e) {
        return bad(`content[${i}].input is not JSON (${(e as Error).message})`);
      }
      size += (json ?? '').length + b.name.length;
    } else return bad(`content[${i}] has type ${JSON.stringify(b.type) ?? 'undefined'}; an answer holds text and tool_use blocks only`);
    if (size > maxBytes) return { errorClass: 'response_too_large', message: `response too large: its content passed the ${maxBytes}-byte cap` };
  }
  return null;
}

