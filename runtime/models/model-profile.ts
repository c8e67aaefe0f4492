import type { ProviderCapabilities } from '../providers/provider.ts';

/** Simulated-provider behaviour of a model (harness-and-runtime.md §3); data, from runtime/data/models.json. */
export interface SimProfile {
  /** Probability-scale skill in [0,1]; P(competent plan) = sigmoid(10 (competence - difficulty)). */
  competence: number;
  /** Time to first token, ms. */
  ttft_ms: number;
  /** Input processing speed, tokens per ms (uncached input only). */
  input_tokens_per_ms: number;
  /** Output speed, tokens per second. */
  output_tokens_per_second: number;
}

/** Everything the runtime knows about one model, keyed by its canonical `provider:name` id. */
export interface ModelProfile {
  id: string;
  /** `openai-compatible` profiles are made at run time for models an OpenAI-compatible server serves. */
  provider: 'anthropic' | 'openai' | 'openai-compatible';
  aliases: string[];
  capabilities: ProviderCapabilities;
  /** Smallest prefix (tokens) the provider will cache; below it a breakpoint caches nothing. */
  min_cacheable_prefix_tokens: number;
  sim: SimProfile;
}

/** Resolves ids and aliases (`haiku`, `gpt-5`) to profiles. */
export interface ModelRegistry {
  /** Throws UnknownModelError naming the known ids and aliases. */
  resolve(idOrAlias: string): ModelProfile;
  list(): readonly ModelProfile[];
}

/** A model id or alias that is not in the registry. */
export class UnknownModelError extends Error {
  constructor(
    readonly requested: string,
    known: readonly string[],
  ) {
    super(`unknown model '${requested}'; known: ${known.join(', ')}`);
    this.name = 'UnknownModelError';
  }
}
