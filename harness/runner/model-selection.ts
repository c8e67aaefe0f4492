import { createModelRegistry, UnknownModelError, type ModelProfile, type ModelRegistry, type VersionedModelRegistry } from '../../runtime/models/index.ts';
import { COMPATIBLE_DEFAULT_CAPABILITIES } from '../../runtime/providers/index.ts';
import { SetupError } from '../errors.ts';

/** Resolves an id or alias, turning an unknown one into a setup error that names the flag. */
export function resolveModel(registry: ModelRegistry, id: string, flag: string) {
  try {
    return registry.resolve(id);
  } catch (e) {
    if (e instanceof UnknownModelError) throw new SetupError(`${flag}: ${e.message}`);
    throw e;
  }
}

/**
 * The model registry of the run. An openai-compatible server (Ollama, vLLM...) serves models the
 * registry cannot know; such a `--model` is added with conservative capabilities so routing can
 * validate it honestly.
 */
export function registryFor(base: VersionedModelRegistry, opts: { provider: string; model: string }): VersionedModelRegistry {
  if (opts.provider !== 'openai-compatible' || base.list().some((m) => m.id === opts.model || m.aliases.includes(opts.model))) return base;
  const name = opts.model.includes(':') ? opts.model.slice(opts.model.indexOf(':') + 1) : opts.model;
  const id = `openai-compatible:${name}`;
  const profile: ModelProfile = {
    id,
    provider: 'openai-compatible',
    aliases: id === opts.model ? [] : [opts.model],
    capabilities: { ...COMPATIBLE_DEFAULT_CAPABILITIES },
    min_cacheable_prefix_tokens: 1024,
    sim: { competence: 0.5, ttft_ms: 1000, input_tokens_per_ms: 5, output_tokens_per_second: 40 },
  };
  return createModelRegistry([...base.list(), profile], base.version);
}
