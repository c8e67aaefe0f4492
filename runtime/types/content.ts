/** Canonical content blocks shared by every provider adapter. */
export interface TextBlock {
  type: 'text';
  text: string;
}

/** The model asks for a tool call. `id` is canonical (`tu_<ulid>`). */
export interface ToolUseBlock {
  type: 'tool_use';
  id: string;
  name: string;
  input: Record<string, unknown>;
}

/** The result of a tool call, sent back in a user message. */
export interface ToolResultBlock {
  type: 'tool_result';
  tool_use_id: string;
  content: string;
  is_error: boolean;
}

export type ContentBlock = TextBlock | ToolUseBlock | ToolResultBlock;

export type Role = 'user' | 'assistant';

/** One conversation message; system text lives on the request, not here. */
export interface Message {
  role: Role;
  content: ContentBlock[];
}

/** Concatenated text of a message's text blocks. */
export function textOf(blocks: readonly ContentBlock[]): string {
  return blocks
    .filter((b): b is TextBlock => b.type === 'text')
    .map((b) => b.text)
    .join('');
}

/** The tool_use blocks of a content list. */
export function toolUsesOf(blocks: readonly ContentBlock[]): ToolUseBlock[] {
  return blocks.filter((b): b is ToolUseBlock => b.type === 'tool_use');
}
