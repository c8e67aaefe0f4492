import Anthropic from '@anthropic-ai/sdk';
import { createSystemClock, type Clock } from '../../core/clock.ts';
import { newId, type IdFactory } from '../../core/ids.ts';
import { UnknownModelError, type ModelProfile, type ModelRegistry } from '../../models/model-profile.ts';
import type { CanonicalRequest } from '../../types/request.ts';
import type { CanonicalResponse } from '../../types/response.ts';
import type { ProviderErrorContext } from '../errors.ts';
import { DEFAULT_REQUEST_TIMEOUT_MS, ProviderError, type Provider, type ProviderCapabilities } from '../provider.ts';
import { resolveRetryPolicy, withRetries, type RetryOptions } from '../retry.ts';
import { cappedFetch, MAX_RESPONSE_BYTES, type FetchLike } from '../response-cap.ts';
import { toAnthropicParams } from './anthropic-request.ts';
import { fromAnthropicMessage } from './anthropic-response.ts';

/** The public Anthropic API; passed explicitly so the SDK never falls back to ANTHROPIC_BASE_URL. */
export const ANTHROPIC_BASE_URL = 'https://api.anthropic.com';


/** Options for createAnthropicProvider. */
export interface AnthropicProviderOptions extends RetryOptions {
  /** The key itself (read from ANTHROPIC_API_KEY by the caller); never appears in an error message. */
  apiKey: string;
  /** Default https://api.anthropic.com; tests point it at a loopback server. */
  baseURL?: string;
  registry: ModelRegistry;
  /** Per-attempt HTTP timeout; a timeout is a network failure, so it is retried. Default DEFAULT_REQUEST_TIMEOUT_MS (10 minutes). */
  timeoutMs?: number;
  /** The most bytes of one answer read before the call fails as `response_too_large`. Default MAX_RESPONSE_BYTES (8 MiB). */
  maxResponseBytes?: number;
  /** The HTTP client under the cap. Default: the global fetch. */
  fetch?: FetchLike;
  /** Measures latency. Default: the system clock. */
  clock?: Clock;
  /** Canonical tool_use ids. Default: the process-wide monotonic factory. */
  ids?: IdFactory;
  /** Named in auth failures. Default ANTHROPIC_API_KEY. */
  keyVariable?: string;
}

/**
 * The Anthropic Messages API adapter (harness-and-runtime.md §3). Writes the context-assembler §3
 * cache breakpoints (last tool, stable system block), so it declares prompt caching honestly.
 * Retries are ours (`retry.ts`); the SDK's are off.
 */
export function createAnthropicProvider(options: AnthropicProviderOptions): Provider {
  const { apiKey, registry } = options;
  const keyVariable = options.keyVariable ?? 'ANTHROPIC_API_KEY';
  if (!apiKey) throw new ProviderError(`anthropic: no API key; set ${keyVariable}`, 'auth');
  const clock = options.clock ?? createSystemClock();
  const ids = options.ids ?? newId;
  const policy = resolveRetryPolicy(options, clock);
  const ctx: ProviderErrorContext = { provider: 'anthropic', keyVariable, secrets: [apiKey] };
  // webhookKey: null keeps the SDK from reading its webhook variable; apiKey given means no credential lookup.
  // An explicit timeout also stops the SDK refusing large non-streaming max_tokens before sending.
  const client = new Anthropic({
    apiKey,
    baseURL: options.baseURL ?? ANTHROPIC_BASE_URL,
    maxRetries: 0,
    timeout: options.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
    // A faulty or hostile server's 200 MB answer must not be read whole (issue 12).
    fetch: cappedFetch(options.maxResponseBytes ?? MAX_RESPONSE_BYTES, options.fetch ?? fetch),
    webhookKey: null,
  });

  const profileOf = (model: string): ModelProfile => {
    let profile: ModelProfile;
    try {
      profile = registry.resolve(model);
    } catch (e) {
      if (e instanceof UnknownModelError) throw new ProviderError(`anthropic: ${e.message}`, 'invalid_request');
      throw e;
    }
    if (profile.provider !== 'anthropic') throw new ProviderError(`anthropic: model ${profile.id} is served by ${profile.provider}, not anthropic`, 'invalid_request');
    return profile;
  };

  return {
    name: 'anthropic',

    capabilities(model): ProviderCapabilities {
      // True whatever the table says: this adapter writes the breakpoints (context-assembler §4).
      return { ...profileOf(model).capabilities, prompt_caching: true };
    },

    async complete(request: CanonicalRequest, signal?: AbortSignal): Promise<CanonicalResponse> {
      const profile = profileOf(request.model);
      // The Messages API takes 0–1 (API reference); a wider value would come back as a 400 after the call was paid for in latency.
      if (!(request.temperature >= 0 && request.temperature <= 1)) throw new ProviderError(`anthropic: temperature ${request.temperature} is outside the Messages API's range 0–1; pass --temperature between 0 and 1`, 'invalid_request');
      const params = toAnthropicParams(request, profile.id.slice('anthropic:'.length));
      const startUs = clock.nowUs();
      const message = await withRetries(() => client.messages.create(params, { maxRetries: 0, ...(signal ? { signal } : {}) }), policy, ctx, signal);
      // Wall time the caller waited, retries and their waits included.
      const latency_ms = Math.max(0, Math.round((clock.nowUs() - startUs) / 1000));
      return { model: profile.id, ...fromAnthropicMessage(message, ids), latency_ms };
    },
  };
}
