import type { ChatCompletion } from 'openai/resources/chat/completions';
import type { CompletionUsage } from 'openai/resources/completions';
import type { IdFactory } from '../../core/ids.ts';
import type { ContentBlock } from '../../types/content.ts';
import type { StopReason, Usage } from '../../types/response.ts';
import { parseToolArguments } from './tool-arguments.ts';

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
 * fresh canonical ids (`tu_<ulid>`); custom (non-function) tool calls are not canonical and are dropped.
 */
export function fromOpenAICompletion(completion: ChatCompletion, ids: IdFactory): OpenAIResult {
  const choice = completion.choices?.[0];
  const message = choice?.message;
  const content: ContentBlock[] = [];
  const text = message?.content || message?.refusal || '';
  if (text) content.push({ type: 'text', text });
  for (const call of message?.tool_calls ?? []) {
    if (call.type !== 'function') continue;
    content.push({ type: 'tool_use', id: ids('tu'), name: call.function.name, input: parseToolArguments(call.function.arguments) });
  }
  const hasToolCalls = content.some((b) => b.type === 'tool_use');
  return {
    content,
    stop_reason: stopReason(choice?.finish_reason, hasToolCalls),
    usage: openAIUsage(completion.usage),
    request_id: completion.id || ids('req'),
  };
}
