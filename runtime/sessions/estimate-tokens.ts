import type { CanonicalRequest } from '../types/request.ts';

/** The parts of a request the estimate counts. */
export type EstimatedRequest = Pick<CanonicalRequest, 'system' | 'system_volatile' | 'tools' | 'messages'>;

/** Characters the estimate counts: system segments, tool specs, and every block's text, result or input JSON. */
export function estimateChars(request: EstimatedRequest): number {
  let chars = (request.system?.length ?? 0) + (request.system_volatile?.length ?? 0);
  for (const t of request.tools) chars += t.name.length + t.description.length + JSON.stringify(t.input_schema).length;
  for (const m of request.messages)
    for (const b of m.content)
      chars += b.type === 'text' ? b.text.length : b.type === 'tool_result' ? b.content.length : (JSON.stringify(b.input) ?? '').length + b.name.length;
  return chars;
}

/**
 * The cheap "heuristic tokens" estimate (≈ 4 characters per token) used for routing and for
 * `estimated_input_tokens`; billing uses the provider's own counts, never this.
 */
export function estimateTokens(request: EstimatedRequest): number {
  return Math.ceil(estimateChars(request) / 4);
}
