import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cachedParse } from '../core/parsed-file-cache.ts';
import { validatorFor } from '../core/schemas.ts';
import { DataFileError, loadYamlValidated } from '../core/yaml-document.ts';
import type { ModelRegistryFile } from '../../schemas/types/models.ts';
import { UnknownModelError, type ModelProfile, type ModelRegistry } from './model-profile.ts';

/** The registry shipped with the runtime. */
export const DEFAULT_MODELS_PATH = fileURLToPath(new URL('../data/models.json', import.meta.url));

/** A registry plus the version of the table it came from (recorded in provenance). */
export interface VersionedModelRegistry extends ModelRegistry {
  readonly version: string;
}

/**
 * Builds a registry from profiles. Throws if an id or alias is claimed twice or an id's
 * `provider:` part disagrees with its `provider` field, so `resolve` is never ambiguous.
 */
export function createModelRegistry(profiles: readonly ModelProfile[], version = 'unversioned'): VersionedModelRegistry {
  const byName = new Map<string, ModelProfile>();
  const claim = (name: string, profile: ModelProfile): void => {
    const other = byName.get(name);
    if (other) throw new Error(`model name '${name}' is claimed by both ${other.id} and ${profile.id}`);
    byName.set(name, profile);
  };
  for (const p of profiles) {
    if (!p.id.startsWith(`${p.provider}:`)) throw new Error(`model ${p.id}: id must start with its provider '${p.provider}:'`);
    claim(p.id, p);
  }
  for (const p of profiles) for (const alias of p.aliases) claim(alias, p);
  const known = [...byName.keys()];
  const list = Object.freeze([...profiles]);
  return {
    version,
    resolve(idOrAlias) {
      const p = byName.get(idOrAlias);
      if (!p) throw new UnknownModelError(idOrAlias, known);
      return p;
    },
    list: () => list,
  };
}

/**
 * Loads and validates a models file (default: runtime/data/models.json). Errors name the file,
 * line and column; JSON is parsed as YAML 1.2 (a superset) so positions come for free.
 */
export function loadModelRegistry(path: string = DEFAULT_MODELS_PATH): VersionedModelRegistry {
  // From the parsed-file cache when dist/ is fresh: the YAML parser (for positions) is most of a load.
  const file = cachedParse('models', resolve(path), () => loadYamlValidated<ModelRegistryFile>(path, validatorFor<ModelRegistryFile>('models.schema.json')));
  // Compile-time check that the schema's generated type still fits the hand-written interface.
  const profiles: readonly ModelProfile[] = file.models;
  try {
    return createModelRegistry(profiles, file.version);
  } catch (e) {
    throw new DataFileError(path, null, null, (e as Error).message);
  }
}
