import OpenAI from 'openai';
import { createSystemClock, type Clock } from '../../core/clock.ts';
import { newId, type IdFactory } from '../../core/ids.ts';
import { UnknownModelError, type ModelProfile, type ModelRegistry } from '../../models/model-profile.ts';
import type { CanonicalRequest } from '../../types/request.ts';
import type { CanonicalResponse } from '../../types/response.ts';
import type { ProviderErrorContext } from '../errors.ts';
import { DEFAULT_REQUEST_TIMEOUT_MS, ProviderError, type Provider, type ProviderCapabilities } from '../provider.ts';
import { resolveRetryPolicy, withRetries, type RetryOptions } from '../retry.ts';
import { cappedFetch, MAX_RESPONSE_BYTES, type FetchLike } from '../response-cap.ts';
import { toOpenAIParams, type OpenAIWireOptions } from './openai-request.ts';
import { fromOpenAICompletion } from './openai-response.ts';

/** The public OpenAI API; passed explicitly so the SDK never falls back to OPENAI_BASE_URL. */
export const OPENAI_BASE_URL = 'https://api.openai.com/v1';

/**
 * What an OpenAI-compatible server's unknown model is assumed to support: tools yes (the agent
 * needs them; a server without them answers 400, classified invalid_request), no vision, no prompt
 * caching claimed (unknown, so not promised, context-assembler §4), a 32k window.
 */
export const COMPATIBLE_DEFAULT_CAPABILITIES: Readonly<ProviderCapabilities> = Object.freeze({
  tools: true,
  vision: false,
  prompt_caching: false,
  system_prompt: true,
  context_window: 32_768,
});


// Local servers (Ollama, vLLM, LM Studio) ignore the key, but the SDK refuses to start without one.
const NO_KEY_PLACEHOLDER = 'no-key';

/** Options for createOpenAIProvider. */
export interface OpenAIProviderOptions extends RetryOptions {
  /** The key itself (read from OPENAI_API_KEY by the caller); may be empty for `openai-compatible`. */
  apiKey: string;
  /** Default https://api.openai.com/v1; required for `openai-compatible` (e.g. http://localhost:11434/v1). */
  baseURL?: string;
  registry: ModelRegistry;
  providerName: 'openai' | 'openai-compatible';
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
  /** Named in auth failures. Default OPENAI_API_KEY. */
  keyVariable?: string;
}

interface ResolvedModel {
  canonical: string;
  wire: string;
  capabilities: ProviderCapabilities;
}

/** The model name after the first `:` (`ollama:qwen2.5-coder:7b` → `qwen2.5-coder:7b`), or the id itself. */
const afterPrefix = (id: string): string => (id.includes(':') ? id.slice(id.indexOf(':') + 1) : id);

/**
 * The Chat Completions adapter for OpenAI and OpenAI-compatible servers (harness-and-runtime.md §3).
 * Keeps the request prefix byte-stable (system → tools → messages, volatile text at the end of
 * the system message) so automatic prefix caching can hit. Retries are ours (`retry.ts`).
 */
export function createOpenAIProvider(options: OpenAIProviderOptions): Provider {
  const { registry, providerName } = options;
  const compatible = providerName === 'openai-compatible';
  const keyVariable = options.keyVariable ?? 'OPENAI_API_KEY';
  if (!options.apiKey && !compatible) throw new ProviderError(`openai: no API key; set ${keyVariable}`, 'auth');
  if (compatible && !options.baseURL) throw new Error('openai-compatible: a baseURL is required (e.g. http://localhost:11434/v1 for Ollama)');
  const apiKey = options.apiKey || NO_KEY_PLACEHOLDER;
  const clock = options.clock ?? createSystemClock();
  const ids = options.ids ?? newId;
  const policy = resolveRetryPolicy(options, clock);
  const ctx: ProviderErrorContext = { provider: providerName, keyVariable, secrets: options.apiKey ? [options.apiKey] : [] };
  // Explicit nulls keep the SDK from reading OPENAI_ORG_ID / OPENAI_PROJECT_ID / OPENAI_WEBHOOK_SECRET.
  const client = new OpenAI({
    apiKey,
    baseURL: options.baseURL ?? OPENAI_BASE_URL,
    maxRetries: 0,
    timeout: options.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
    // A faulty or hostile server's 200 MB answer must not be read whole (issue 12).
    fetch: cappedFetch(options.maxResponseBytes ?? MAX_RESPONSE_BYTES, options.fetch ?? fetch),
    organization: null,
    project: null,
    webhookSecret: null,
  });
  const maxTokensField: OpenAIWireOptions['maxTokensField'] = compatible ? 'max_tokens' : 'max_completion_tokens';

  const resolve = (model: string): ResolvedModel => {
    let profile: ModelProfile;
    try {
      profile = registry.resolve(model);
    } catch (e) {
      if (!(e instanceof UnknownModelError)) throw e;
      if (compatible) return { canonical: model, wire: afterPrefix(model), capabilities: { ...COMPATIBLE_DEFAULT_CAPABILITIES } };
      throw new ProviderError(`openai: ${e.message}`, 'invalid_request');
    }
    if (!compatible && profile.provider !== 'openai') {
      throw new ProviderError(`openai: model ${profile.id} is served by ${profile.provider}, not openai`, 'invalid_request');
    }
    return { canonical: profile.id, wire: afterPrefix(profile.id), capabilities: { ...profile.capabilities } };
  };

  return {
    name: providerName,

    capabilities: (model) => resolve(model).capabilities,

    async complete(request: CanonicalRequest, signal?: AbortSignal): Promise<CanonicalResponse> {
      const model = resolve(request.model);
      const params = toOpenAIParams(request, { wireModel: model.wire, maxTokensField });
      const startUs = clock.nowUs();
      const completion = await withRetries(
        () => client.chat.completions.create(params, { maxRetries: 0, ...(signal ? { signal } : {}) }),
        policy,
        ctx,
        signal,
      );
      // Wall time the caller waited, retries and their waits included.
      const latency_ms = Math.max(0, Math.round((clock.nowUs() - startUs) / 1000));
      return { model: model.canonical, ...fromOpenAICompletion(completion, ids), latency_ms };
    },
  };
}
