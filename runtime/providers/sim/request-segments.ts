import type { ContentBlock, Role } from '../../types/content.ts';
import type { CanonicalRequest, ToolSpec } from '../../types/request.ts';

/** What part of the request a segment is; part of a cached prefix's identity. */
export type SegmentKind = 'tool' | 'system' | 'system_volatile' | `${Role}.${ContentBlock['type']}`;

/** One unit of the request as the simulated wire sees it: counted and hashed as a whole. */
export interface RequestSegment {
  kind: SegmentKind;
  text: string;
}

/** A request flattened in wire order, with the Anthropic cache breakpoints. */
export interface SerializedRequest {
  segments: RequestSegment[];
  /**
   * Explicit cache breakpoints, ascending, as the number of leading segments each caches:
   * after tools[-1] and after the stable system segment (context-assembler.md §3). Empty for
   * providers that cache prefixes automatically.
   */
  breakpoints: number[];
}

/** Wire order: Anthropic walks tools → system → messages; OpenAI sends system → tools → messages (context-assembler.md §3). */
export type WireOrder = 'anthropic' | 'openai';

// Canonical objects are treated as immutable, so each is stringified once, not every call.
const stringified = new WeakMap<object, string>();

function once(obj: object, make: () => string): string {
  let s = stringified.get(obj);
  if (s === undefined) {
    s = make();
    stringified.set(obj, s);
  }
  return s;
}

/** A tool as counted: its name, description and JSON Schema, as JSON. */
export function toolText(tool: ToolSpec): string {
  return once(tool, () => JSON.stringify({ name: tool.name, description: tool.description, input_schema: tool.input_schema }));
}

/** A content block as counted: text as is, tool_use as JSON {id, name, input}, tool_result its content. */
export function blockText(block: ContentBlock): string {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'tool_use':
      return once(block, () => JSON.stringify({ id: block.id, name: block.name, input: block.input }));
    case 'tool_result':
      return block.content;
  }
}

/**
 * Flattens a request into segments. Role and block framing tokens are not counted (a few per
 * message on real APIs); everything the model reads is. Empty system segments are omitted.
 */
export function serializeRequest(request: CanonicalRequest, order: WireOrder): SerializedRequest {
  const tools: RequestSegment[] = request.tools.map((t) => ({ kind: 'tool', text: toolText(t) }));
  const system: RequestSegment[] = request.system ? [{ kind: 'system', text: request.system }] : [];
  const volatile: RequestSegment[] = request.system_volatile ? [{ kind: 'system_volatile', text: request.system_volatile }] : [];
  const messages: RequestSegment[] = [];
  for (const m of request.messages) {
    for (const b of m.content) messages.push({ kind: `${m.role}.${b.type}`, text: blockText(b) });
  }
  if (order === 'openai') return { segments: [...system, ...volatile, ...tools, ...messages], breakpoints: [] };
  const breakpoints: number[] = [];
  if (tools.length > 0) breakpoints.push(tools.length);
  if (system.length > 0) breakpoints.push(tools.length + 1);
  return { segments: [...tools, ...system, ...volatile, ...messages], breakpoints };
}
