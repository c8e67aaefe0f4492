import type {
  ChatCompletionAssistantMessageParam,
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionFunctionTool,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions';
import type { Message, TextBlock, ToolResultBlock, ToolUseBlock } from '../../types/content.ts';
import type { CanonicalRequest } from '../../types/request.ts';
import { serializeToolArguments } from './tool-arguments.ts';

/** How a request is addressed: the model name the server knows, and the field that caps output. */
export interface OpenAIWireOptions {
  wireModel: string;
  /** `max_completion_tokens` for OpenAI (`max_tokens` is deprecated and refused by reasoning models); `max_tokens` for compatible servers, which all read it. */
  maxTokensField: 'max_completion_tokens' | 'max_tokens';
}

/** Prefixed to a failed tool's result: Chat Completions has no is_error flag, and the model must know the call failed. */
export const TOOL_ERROR_PREFIX = 'Error: ';

const SEPARATOR = '\n\n';

/**
 * One system message: stable text, then volatile text at its END (context-assembler.md §3), so the
 * byte-stable prefix (system → tools → messages) only changes after the stable part.
 */
export function systemText(request: CanonicalRequest): string {
  return [request.system, request.system_volatile].filter((s): s is string => !!s).join(SEPARATOR);
}

const texts = (m: Message): string =>
  m.content
    .filter((b): b is TextBlock => b.type === 'text' && b.text !== '')
    .map((b) => b.text)
    .join(SEPARATOR);

function userMessages(m: Message): ChatCompletionMessageParam[] {
  // Tool results become `tool` messages, which must directly follow the assistant's tool_calls.
  const out: ChatCompletionMessageParam[] = m.content
    .filter((b): b is ToolResultBlock => b.type === 'tool_result')
    .map((b) => ({ role: 'tool', tool_call_id: b.tool_use_id, content: b.is_error ? `${TOOL_ERROR_PREFIX}${b.content}` : b.content }));
  const text = texts(m);
  if (text) out.push({ role: 'user', content: text });
  return out;
}

function assistantMessage(m: Message): ChatCompletionAssistantMessageParam {
  const uses = m.content.filter((b): b is ToolUseBlock => b.type === 'tool_use');
  const text = texts(m);
  return {
    role: 'assistant',
    content: text || (uses.length > 0 ? null : ''),
    // Canonical ids (`tu_<ulid>`, 29 chars) go on the wire as is: no id map to keep between calls.
    ...(uses.length > 0
      ? { tool_calls: uses.map((u) => ({ id: u.id, type: 'function' as const, function: { name: u.name, arguments: serializeToolArguments(u.input) } })) }
      : {}),
  };
}

/** Canonical request → Chat Completions body. `metadata` never goes on the wire. */
export function toOpenAIParams(request: CanonicalRequest, options: OpenAIWireOptions): ChatCompletionCreateParamsNonStreaming {
  const system = systemText(request);
  const messages: ChatCompletionMessageParam[] = system ? [{ role: 'system', content: system }] : [];
  for (const m of request.messages) {
    if (m.role === 'assistant') messages.push(assistantMessage(m));
    else messages.push(...userMessages(m));
  }
  const tools: ChatCompletionFunctionTool[] = request.tools.map((t) => ({
    type: 'function',
    function: { name: t.name, description: t.description, parameters: t.input_schema },
  }));
  return {
    model: options.wireModel,
    messages,
    ...(tools.length > 0 ? { tools } : {}),
    temperature: request.temperature,
    [options.maxTokensField]: request.max_tokens,
  };
}
