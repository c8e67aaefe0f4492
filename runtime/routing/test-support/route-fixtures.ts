// Fixture builders for routing tests and perf scripts: a fake model registry and a route context.
import { UnknownModelError, type ModelProfile, type ModelRegistry } from '../../models/model-profile.ts';
import type { ProviderCapabilities } from '../../providers/provider.ts';
import type { PatternRecommendation, PatternRecommender, RouteContext } from '../route-context.ts';

/** A capability-complete model with overrides. */
export function fakeProfile(id: string, aliases: string[] = [], caps: Partial<ProviderCapabilities> = {}): ModelProfile {
  return {
    id,
    provider: id.startsWith('openai:') ? 'openai' : 'anthropic',
    aliases,
    capabilities: { tools: true, vision: true, prompt_caching: true, system_prompt: true, context_window: 200_000, ...caps },
    min_cacheable_prefix_tokens: 1024,
    sim: { competence: 0.7, ttft_ms: 500, input_tokens_per_ms: 10, output_tokens_per_second: 100 },
  };
}

export const HAIKU = 'anthropic:claude-haiku-4-5';
export const SONNET = 'anthropic:claude-sonnet-4-6';
export const OPUS = 'anthropic:claude-opus-4-5';
/** A model without tool use or vision and a small window, to exercise validation. */
export const TINY = 'openai:tiny-text';

/** A small registry: haiku, sonnet, opus (with aliases) and a text-only model with an 8k window. */
export function fakeRegistry(extra: ModelProfile[] = []): ModelRegistry {
  const profiles = [
    fakeProfile(HAIKU, ['haiku']),
    fakeProfile(SONNET, ['sonnet']),
    fakeProfile(OPUS, ['opus']),
    fakeProfile(TINY, ['tiny'], { tools: false, vision: false, context_window: 8_000 }),
    ...extra,
  ];
  const byName = new Map<string, ModelProfile>();
  for (const p of profiles) for (const n of [p.id, ...p.aliases]) byName.set(n, p);
  return {
    resolve(name) {
      const p = byName.get(name);
      if (!p) throw new UnknownModelError(name, [...byName.keys()]);
      return p;
    },
    list: () => profiles,
  };
}

/** A recommender that always answers `rec` (null: no recommendation). */
export function fakeRecommender(rec: PatternRecommendation | null): PatternRecommender & { calls: number } {
  const r = {
    calls: 0,
    recommend() {
      r.calls += 1;
      return rec;
    },
  };
  return r;
}

/** A turn where no slot applies, with overrides. */
export function routeContext(overrides: Partial<RouteContext> = {}): RouteContext {
  return {
    override_model: null,
    sticky_model: null,
    workspace_default_model: null,
    global_default_model: null,
    user_message: '',
    intent_tags: [],
    file_extensions: [],
    estimated_input_tokens: 1_000,
    tools_offered: false,
    has_images: false,
    delegate_tier: null,
    tiers: { fast: HAIKU, balanced: SONNET, deep: OPUS },
    recommender: null,
    ...overrides,
  };
}
