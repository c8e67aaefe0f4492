import type { Message as WireMessage, StopReason as WireStopReason } from '@anthropic-ai/sdk/resources/messages';
import type { IdFactory } from '../../core/ids.ts';
import type { ContentBlock } from '../../types/content.ts';
import type { StopReason, Usage } from '../../types/response.ts';
import { isRecord, malformedResponse } from '../malformed-response.ts';
import { parseToolArguments } from '../openai/tool-arguments.ts';

/** What the Messages API response contributes to a CanonicalResponse. */
export interface AnthropicResult {
  content: ContentBlock[];
  stop_reason: StopReason;
  usage: Usage;
  request_id: string;
}

// pause_turn and refusal end the turn for our loop; running out of window is a truncation.
const STOP_REASONS: Record<WireStopReason, StopReason> = {
  end_turn: 'end_turn',
  max_tokens: 'max_tokens',
  stop_sequence: 'stop_sequence',
  tool_use: 'tool_use',
  pause_turn: 'end_turn',
  refusal: 'end_turn',
  model_context_window_exceeded: 'max_tokens',
};

const count = (n: number | null | undefined): number => (typeof n === 'number' && n > 0 ? Math.round(n) : 0);

/**
 * Usage in the canonical convention. Anthropic's `input_tokens` already excludes cache reads and
 * writes, so it maps as is; reads become `cached_input_tokens`.
 */
export function anthropicUsage(usage: WireMessage['usage'] | null | undefined): Usage {
  // The total is the documented field; when only the per-TTL breakdown is given, its sum is the same number.
  const byTtl = isRecord(usage?.cache_creation) ? count(usage.cache_creation.ephemeral_5m_input_tokens) + count(usage.cache_creation.ephemeral_1h_input_tokens) : 0;
  return {
    input_tokens: count(usage?.input_tokens),
    output_tokens: count(usage?.output_tokens),
    cached_input_tokens: count(usage?.cache_read_input_tokens),
    cache_creation_input_tokens: typeof usage?.cache_creation_input_tokens === 'number' ? count(usage.cache_creation_input_tokens) : byTtl,
  };
}

/**
 * Messages API response → canonical parts. Tool calls get fresh canonical ids (`tu_<ulid>`), which
 * are also what later requests send back; blocks other than text and tool_use (thinking, server
 * tools) are not part of the canonical shape and are dropped. A body that is not a Message (`{}`,
 * a block without its fields) throws a `malformed_response` ProviderError, never a TypeError.
 * A tool_use input that is not an object is kept as raw text, so the dispatcher reports `tool.input_invalid`.
 */
export function fromAnthropicMessage(message: WireMessage, ids: IdFactory): AnthropicResult {
  const body: unknown = message;
  if (!isRecord(body)) throw malformedResponse('anthropic', 'the response body', 'a Message object', body);
  if (!Array.isArray(body.content)) throw malformedResponse('anthropic', 'content', 'a list of content blocks', body.content);
  const content: ContentBlock[] = [];
  for (const [i, b] of (body.content as unknown[]).entries()) {
    if (!isRecord(b) || typeof b.type !== 'string') throw malformedResponse('anthropic', `content[${i}]`, 'a content block with a string type', isRecord(b) ? b.type : b);
    if (b.type === 'text') {
      if (typeof b.text !== 'string') throw malformedResponse('anthropic', `content[${i}].text`, 'a string', b.text);
      content.push({ type: 'text', text: b.text });
    } else if (b.type === 'tool_use') {
      if (typeof b.name !== 'string' || b.name === '') throw malformedResponse('anthropic', `content[${i}].name`, 'a tool name', b.name);
      // A non-object input is kept as raw text (as the OpenAI adapter does), so the dispatcher answers tool.input_invalid.
      content.push({ type: 'tool_use', id: ids('tu'), name: b.name, input: b.input === undefined || b.input === null ? {} : parseToolArguments(b.input) });
    }
  }
  const stop = typeof body.stop_reason === 'string' ? STOP_REASONS[body.stop_reason as WireStopReason] : undefined;
  return {
    content,
    stop_reason: stop ?? 'end_turn',
    usage: anthropicUsage(isRecord(body.usage) ? (body.usage as unknown as WireMessage['usage']) : null),
    request_id: (typeof body.id === 'string' && body.id) || ids('req'),
  };
}
