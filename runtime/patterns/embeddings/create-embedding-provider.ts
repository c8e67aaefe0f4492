// Provider ids → instances (§16.2). Secrets come from the `env` the caller passes in.
import { createCohereEmbeddingProvider } from './cohere-provider.ts';
import { createDeterministicProvider } from './deterministic-provider.ts';
import { EmbeddingProviderError, type EmbeddingProvider } from './embedding-provider.ts';
import { createHashingProvider } from './hashing-provider.ts';
import { createOpenAIEmbeddingProvider } from './openai-provider.ts';
import { createTransformersEmbeddingProvider, NODE_TRANSFORMERS_SETUP, type TransformersSetup } from './transformers-provider.ts';
import { createUseLiteProvider, USE_LITE_PROVIDER_ID } from './use-lite-provider.ts';

/** Where a provider's secrets and transport come from. */
export interface EmbeddingProviderContext {
  env: Readonly<Record<string, string | undefined>>;
  fetch?: typeof fetch;
  baseURL?: string;
  /** Where local:transformers:<model> looks for `<model>/`; defaults to env METIS_MODELS_DIR. */
  modelsDir?: string;
  /** Package resolution and file reads for local:transformers (tests inject a stand-in). */
  transformersSetup?: TransformersSetup;
}

function key(env: EmbeddingProviderContext['env'], name: string, id: string): string {
  const k = env[name];
  if (!k) throw new EmbeddingProviderError(id, `${name} is not set`);
  return k;
}

/**
 * Creates the provider named by `id`: local:hashing-384, local:use-lite, local:transformers:<model>, openai:<model>,
 * cohere:<model>, test:deterministic-<dim>. Missing keys, packages or model files throw EmbeddingProviderError here.
 */
export function createEmbeddingProvider(id: string, ctx: EmbeddingProviderContext): EmbeddingProvider {
  if (id === 'local:hashing-384') return createHashingProvider(384);
  if (id === USE_LITE_PROVIDER_ID) return createUseLiteProvider();
  const det = /^test:deterministic-(\d+)$/.exec(id);
  if (det) return createDeterministicProvider(Number(det[1]));
  if (id.startsWith('openai:'))
    return createOpenAIEmbeddingProvider({ apiKey: key(ctx.env, 'OPENAI_API_KEY', id), model: id.slice(7), baseURL: ctx.baseURL, fetch: ctx.fetch });
  if (id.startsWith('cohere:'))
    return createCohereEmbeddingProvider({ apiKey: key(ctx.env, 'COHERE_API_KEY', id), model: id.slice(7), baseURL: ctx.baseURL, fetch: ctx.fetch });
  if (id.startsWith('local:transformers:'))
    return createTransformersEmbeddingProvider(id.slice('local:transformers:'.length), ctx.modelsDir ?? ctx.env['METIS_MODELS_DIR'], ctx.transformersSetup ?? NODE_TRANSFORMERS_SETUP);
  throw new EmbeddingProviderError(id, 'unknown embedding provider id (known: local:hashing-384, local:use-lite, local:transformers:<model>, openai:<model>, cohere:<model>, test:deterministic-<dim>)');
}
