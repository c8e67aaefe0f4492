import type { Message } from './content.ts';

/** A tool as offered to the model: name, description and JSON Schema of its input. */
export interface ToolSpec {
  name: string;
  description: string;
  input_schema: Record<string, unknown>;
}

/**
 * Provider-neutral request. The system prompt has two segments (context-assembler.md §2):
 * `system` is stable across turns and sits before the cache breakpoint; `system_volatile` trails it.
 */
export interface CanonicalRequest {
  /** Canonical model id, `provider:name`. */
  model: string;
  system: string | null;
  system_volatile: string | null;
  tools: ToolSpec[];
  messages: Message[];
  temperature: number;
  max_tokens: number;
  /** Opaque per-request metadata the harness may thread to a provider (never sent on the wire). */
  metadata?: Record<string, string>;
}
