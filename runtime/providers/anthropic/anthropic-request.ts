import type {
  ContentBlockParam,
  MessageCreateParamsNonStreaming,
  MessageParam,
  TextBlockParam,
  Tool,
} from '@anthropic-ai/sdk/resources/messages';
import type { ContentBlock, Message } from '../../types/content.ts';
import type { CanonicalRequest } from '../../types/request.ts';

const EPHEMERAL = { type: 'ephemeral' } as const;

/**
 * System blocks (context-assembler.md §2–§3): the stable segment carries the breakpoint, the
 * volatile segment follows it without one, so per-turn changes stay outside the cached prefix.
 */
function systemBlocks(request: CanonicalRequest): TextBlockParam[] {
  const blocks: TextBlockParam[] = [];
  if (request.system) blocks.push({ type: 'text', text: request.system, cache_control: EPHEMERAL });
  if (request.system_volatile) blocks.push({ type: 'text', text: request.system_volatile });
  return blocks;
}

/** Tools in the caller's order, with the breakpoint on the last one: the tool list is the largest stable prefix. */
function tools(request: CanonicalRequest): Tool[] {
  return request.tools.map((t, i) => ({
    name: t.name,
    description: t.description,
    input_schema: t.input_schema as Tool.InputSchema,
    ...(i === request.tools.length - 1 ? { cache_control: EPHEMERAL } : {}),
  }));
}

function block(b: ContentBlock): ContentBlockParam | null {
  switch (b.type) {
    case 'text':
      // The API rejects empty text blocks; an empty one carries nothing the model could read.
      return b.text ? { type: 'text', text: b.text } : null;
    case 'tool_use':
      // Canonical ids (`tu_<ulid>`) go on the wire as is: the API accepts any [A-Za-z0-9_-] id, so no id map is kept.
      return { type: 'tool_use', id: b.id, name: b.name, input: b.input };
    case 'tool_result':
      return { type: 'tool_result', tool_use_id: b.tool_use_id, content: b.content, is_error: b.is_error };
  }
}

function message(m: Message): MessageParam {
  return { role: m.role, content: m.content.map(block).filter((b): b is ContentBlockParam => b !== null) };
}

/**
 * The Messages API body. SDK 1.x dropped `temperature` from its types (newer models reject it), but
 * the models in our registry accept it and the spec threads it through, so it rides as an extra body
 * field; the SDK sends extra fields as they are.
 */
export type AnthropicWireParams = MessageCreateParamsNonStreaming & { temperature: number };

/** Canonical request → Messages API body; `wireModel` is the model id without its `anthropic:` prefix. */
export function toAnthropicParams(request: CanonicalRequest, wireModel: string): AnthropicWireParams {
  const system = systemBlocks(request);
  return {
    model: wireModel,
    max_tokens: request.max_tokens,
    temperature: request.temperature,
    ...(system.length > 0 ? { system } : {}),
    ...(request.tools.length > 0 ? { tools: tools(request) } : {}),
    messages: request.messages.map(message),
  };
}
