import type { ChatCompletion } from 'openai/resources/chat/completions';
import type { CompletionUsage } from 'openai/resources/completions';
import type { IdFactory } from '../../core/ids.ts';
import type { ContentBlock } from '../../types/content.ts';
import type { StopReason, Usage } from '../../types/response.ts';
import { parseToolArguments } from './tool-arguments.ts';
import { isRecord, malformedResponse } from '../malformed-response.ts';

// Named in malformed-response messages; OpenAI-compatible servers share this parser.
const PROVIDER = 'openai';

/** What a Chat Completions response contributes to a CanonicalResponse. */
export interface OpenAIResult {
  content: ContentBlock[];
  stop_reason: StopReason;
  usage: Usage;
  request_id: string;
}

const count = (n: number | null | undefined): number => (typeof n === 'number' && n > 0 ? Math.round(n) : 0);

/**
 * Usage in the canonical convention: OpenAI's `prompt_tokens` INCLUDES the cached tokens, so
 * uncached input is the difference. OpenAI bills no separate cache write, so creation is 0
 * (`cache_write_tokens`, where a server reports it, stays inside `input_tokens`). A server that
 * reports no usage gives zeros.
 */
export function openAIUsage(usage: CompletionUsage | null | undefined): Usage {
  const prompt = count(usage?.prompt_tokens);
  const cached = Math.min(count(usage?.prompt_tokens_details?.cached_tokens), prompt);
  return { input_tokens: prompt - cached, output_tokens: count(usage?.completion_tokens), cached_input_tokens: cached, cache_creation_input_tokens: 0 };
}

/**
 * `length` → max_tokens; `tool_calls` → tool_use; `stop`, `content_filter` → end_turn. Decided by
 * the tool calls actually present, not the label: some compatible servers (older Ollama) say
 * `stop` with tool calls, and a tool_use with no call to run would stall the agent loop.
 */
function stopReason(finish: string | null | undefined, hasToolCalls: boolean): StopReason {
  if (finish === 'length') return 'max_tokens';
  return hasToolCalls ? 'tool_use' : 'end_turn';
}

/**
 * Chat Completions response → canonical parts. Text (or a refusal) first, then tool calls with
 * fresh canonical ids (`tu_<ulid>`); custom (non-function) tool calls are not canonical and are
 * dropped. A body that is not a completion (`{}`, no choices, a call without a function name)
 * throws a `malformed_response` ProviderError, never a TypeError.
 */
export function fromOpenAICompletion(completion: ChatCompletion, ids: IdFactory): OpenAIResult {
  const body: unknown = completion;
  if (!isRecord(body)) throw malformedResponse(PROVIDER, 'the response body', 'a chat completion object', body);
  if (!Array.isArray(body.choices) || body.choices.length === 0) throw malformedResponse(PROVIDER, 'choices', 'a non-empty list', body.choices);
  const choice: unknown = body.choices[0];
  if (!isRecord(choice) || !isRecord(choice.message)) throw malformedResponse(PROVIDER, 'choices[0].message', 'an object', isRecord(choice) ? choice.message : choice);
  const message = choice.message;
  const content: ContentBlock[] = [];
  for (const field of ['content', 'refusal'] as const) {
    const v = message[field];
    if (v !== undefined && v !== null && typeof v !== 'string') throw malformedResponse(PROVIDER, `choices[0].message.${field}`, 'a string or null', v);
  }
  const text = (message.content as string | null | undefined) || (message.refusal as string | null | undefined) || '';
  if (text) content.push({ type: 'text', text });
  const calls = message.tool_calls ?? [];
  if (!Array.isArray(calls)) throw malformedResponse(PROVIDER, 'choices[0].message.tool_calls', 'a list', calls);
  for (const [i, call] of (calls as unknown[]).entries()) {
    if (!isRecord(call)) throw malformedResponse(PROVIDER, `tool_calls[${i}]`, 'an object', call);
    // Some compatible servers omit `type`; a call with a function is a function call.
    if (call.type !== undefined && call.type !== 'function') continue;
    const fn = call.function;
    if (!isRecord(fn) || typeof fn.name !== 'string' || fn.name === '') throw malformedResponse(PROVIDER, `tool_calls[${i}].function.name`, 'a tool name', isRecord(fn) ? fn.name : fn);
    content.push({ type: 'tool_use', id: ids('tu'), name: fn.name, input: parseToolArguments(fn.arguments) });
  }
  const hasToolCalls = content.some((b) => b.type === 'tool_use');
  const finish = typeof choice.finish_reason === 'string' ? choice.finish_reason : null;
  return {
    content,
    stop_reason: stopReason(finish, hasToolCalls),
    usage: openAIUsage(isRecord(body.usage) ? (body.usage as unknown as CompletionUsage) : null),
    request_id: (typeof body.id === 'string' && body.id) || ids('req'),
  };
}
