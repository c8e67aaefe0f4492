import { UnknownModelError, type ModelProfile, type ModelRegistry } from '../models/model-profile.ts';
import type { RouteValidator } from './decide-route.ts';

/** Options for the capability validator. */
export interface CapabilityValidatorOptions {
  /** True for a model whose provider is currently marked unavailable (routing.provider_unavailable). */
  isUnavailable?: (modelId: string) => boolean;
}

/**
 * Validates candidates against the model registry's capabilities: unknown → `not_configured`; then
 * provider availability, system prompt, tools, vision and context window, in that order.
 */
export function createCapabilityValidator(registry: ModelRegistry, options: CapabilityValidatorOptions = {}): RouteValidator {
  return (model, ctx) => {
    let profile: ModelProfile;
    try {
      profile = registry.resolve(model);
    } catch (e) {
      if (e instanceof UnknownModelError) return 'not_configured';
      throw e;
    }
    const caps = profile.capabilities;
    if (options.isUnavailable?.(profile.id)) return 'provider_unavailable';
    // Every Metis request carries the two-segment system prompt (context-assembler.md §2).
    if (!caps.system_prompt) return 'no_system_prompt_support';
    if (ctx.tools_offered && !caps.tools) return 'no_tool_support';
    if (ctx.has_images && !caps.vision) return 'no_vision_support';
    if (ctx.estimated_input_tokens > caps.context_window) return 'exceeds_context_window';
    return null;
  };
}
