import type { Message as WireMessage, StopReason as WireStopReason } from '@anthropic-ai/sdk/resources/messages';
import type { IdFactory } from '../../core/ids.ts';
import type { ContentBlock } from '../../types/content.ts';
import type { StopReason, Usage } from '../../types/response.ts';

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
  return {
    input_tokens: count(usage?.input_tokens),
    output_tokens: count(usage?.output_tokens),
    cached_input_tokens: count(usage?.cache_read_input_tokens),
    cache_creation_input_tokens: count(usage?.cache_creation_input_tokens),
  };
}

/**
 * Messages API response → canonical parts. Tool calls get fresh canonical ids (`tu_<ulid>`), which
 * are also what later requests send back; blocks other than text and tool_use (thinking, server
 * tools) are not part of the canonical shape and are dropped.
 */
export function fromAnthropicMessage(message: WireMessage, ids: IdFactory): AnthropicResult {
  const content: ContentBlock[] = [];
  for (const b of message.content) {
    if (b.type === 'text') content.push({ type: 'text', text: b.text });
    else if (b.type === 'tool_use') {
      const input = typeof b.input === 'object' && b.input !== null && !Array.isArray(b.input) ? (b.input as Record<string, unknown>) : {};
      content.push({ type: 'tool_use', id: ids('tu'), name: b.name, input });
    }
  }
  return {
    content,
    stop_reason: (message.stop_reason && STOP_REASONS[message.stop_reason]) || 'end_turn',
    usage: anthropicUsage(message.usage),
    request_id: message.id || ids('req'),
  };
}
