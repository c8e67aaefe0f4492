import type { SimProfile } from '../../models/model-profile.ts';

/**
 * Simulated wall time of one call, in whole microseconds: time to first token, plus prefill of
 * the uncached input (plain input and cache writes; cache reads are treated as free), plus decode.
 */
export function simulatedLatencyUs(profile: SimProfile, uncachedInputTokens: number, outputTokens: number): number {
  const ms = profile.ttft_ms + uncachedInputTokens / profile.input_tokens_per_ms + (outputTokens * 1000) / profile.output_tokens_per_second;
  return Math.round(ms * 1000);
}
