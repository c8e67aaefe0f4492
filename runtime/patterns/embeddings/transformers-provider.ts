// local:transformers:<model> (§16.3 local provider): sentence embeddings from an optional package and
// model files on local disk. Both are checked when the provider is built, so a misconfigured
// workspace fails at open with the fix in the message (§16.3), never at its first turn.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { EmbeddingProviderError, l2Normalize, type EmbeddingProvider } from './embedding-provider.ts';

/** The optional package this provider loads. */
export const TRANSFORMERS_PACKAGE = '@huggingface/transformers';

/** The file system and module resolution the setup check reads (injected so tests need neither). */
export interface TransformersSetup {
  /** True when `name` resolves from this project. */
  resolvePackage(name: string): boolean;
  exists(path: string): boolean;
  readText(path: string): string;
}

/** The real file system and resolver. */
export const NODE_TRANSFORMERS_SETUP: TransformersSetup = {
  resolvePackage(name) {
    try {
      createRequire(import.meta.url).resolve(name);
      return true;
    } catch {
      return false;
    }
  },
  exists: existsSync,
  readText: (p) => readFileSync(p, 'utf8'),
};

/**
 * Checks that `local:transformers:<model>` can run: the package is installed and `<modelsDir>/<model>`
 * holds a config.json; returns the model directory and its embedding dim. Throws EmbeddingProviderError naming the fix.
 */
export function checkTransformersSetup(model: string, modelsDir: string | undefined, setup: TransformersSetup): { modelDir: string; dim: number } {
  const id = `local:transformers:${model}`;
  if (!model) throw new EmbeddingProviderError(id, 'no model named (use local:transformers:<model directory name>)');
  if (!setup.resolvePackage(TRANSFORMERS_PACKAGE))
    throw new EmbeddingProviderError(id, `the optional package '${TRANSFORMERS_PACKAGE}' is not installed (npm install ${TRANSFORMERS_PACKAGE})`);
  if (!modelsDir) throw new EmbeddingProviderError(id, `no models directory: set METIS_MODELS_DIR to the directory holding ${model}/`);
  const modelDir = join(modelsDir, model);
  const config = join(modelDir, 'config.json');
  if (!setup.exists(config)) throw new EmbeddingProviderError(id, `model directory ${modelDir} is missing or has no config.json (download the model files there)`);
  const dim = (JSON.parse(setup.readText(config)) as { hidden_size?: unknown }).hidden_size;
  if (typeof dim !== 'number' || !(dim > 0)) throw new EmbeddingProviderError(id, `${config} has no hidden_size`);
  return { modelDir, dim };
}

type Extractor = (texts: string[], opts: { pooling: 'mean'; normalize: boolean }) => Promise<{ data: Float32Array }>;

/** Builds the provider after `checkTransformersSetup`; the package and weights load on the first embed. */
export function createTransformersEmbeddingProvider(model: string, modelsDir: string | undefined, setup: TransformersSetup = NODE_TRANSFORMERS_SETUP): EmbeddingProvider {
  const { modelDir, dim } = checkTransformersSetup(model, modelsDir, setup);
  const provider_id = `local:transformers:${model}`;
  let extractor: Promise<Extractor> | null = null;
  const load = async (): Promise<Extractor> => {
    // A variable specifier: the package is optional, so neither the compiler nor the bundler may require it.
    const pkg = TRANSFORMERS_PACKAGE;
    const mod = (await import(pkg)) as { pipeline(task: string, model: string, opts: object): Promise<Extractor> };
    return mod.pipeline('feature-extraction', modelDir, { local_files_only: true });
  };
  return {
    provider_id,
    dim,
    max_input_tokens: 256,
    async embed(texts) {
      if (texts.length === 0) return [];
      extractor ??= load();
      let out: { data: Float32Array };
      try {
        out = await (await extractor)(texts, { pooling: 'mean', normalize: true });
      } catch (e) {
        throw new EmbeddingProviderError(provider_id, `embedding failed: ${(e as Error)?.message ?? String(e)}`);
      }
      return texts.map((_, i) => l2Normalize(Float32Array.from(out.data.subarray(i * dim, (i + 1) * dim))));
    },
    close: () => Promise.resolve(),
  };
}
