import type { CanonicalRequest } from '../types/request.ts';
import type { CanonicalResponse } from '../types/response.ts';

/** What an adapter honestly supports for a model (context-assembler.md §4). */
export interface ProviderCapabilities {
  tools: boolean;
  vision: boolean;
  prompt_caching: boolean;
  system_prompt: boolean;
  context_window: number;
}

/** How long one HTTP attempt of a real provider may take before it fails as a network error (and is retried): 10 minutes. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 600_000;

/** One interface for every model backend: sim, replay, Anthropic, OpenAI. */
export interface Provider {
  /** Registry name: `sim`, `anthropic`, `openai`, `openai-compatible`, `replay`. */
  readonly name: string;
  capabilities(model: string): ProviderCapabilities;
  complete(request: CanonicalRequest, signal?: AbortSignal): Promise<CanonicalResponse>;
}

/** The closed list of error classes an adapter reports (catalog §6.3 llm.call_failed). */
export type ProviderErrorClass =
  | 'rate_limit'
  | 'auth'
  | 'server_error'
  | 'network'
  | 'context_overflow'
  | 'invalid_request'
  | 'cancelled'
  /** A 2xx answer whose body is not the API's response shape (e.g. `{}`), or a canonical response with missing or mistyped fields. */
  | 'malformed_response'
  /** The answer passed the response size cap (MAX_RESPONSE_BYTES); it was not read whole. */
  | 'response_too_large'
  | 'other';

/** A classified provider failure; `retryCount` is how many retries the adapter already made. */
export class ProviderError extends Error {
  constructor(
    message: string,
    readonly errorClass: ProviderErrorClass,
    readonly retryCount = 0,
  ) {
    super(message);
    this.name = 'ProviderError';
  }
}
