// Provider ids → instances (§16.2). Secrets come from the `env` the caller passes in.
import { createCohereEmbeddingProvider } from './cohere-provider.ts';
import { createDeterministicProvider } from './deterministic-provider.ts';
import { EmbeddingProviderError, type EmbeddingProvider } from './embedding-provider.ts';
import { createHashingProvider } from './hashing-provider.ts';
import { createOpenAIEmbeddingProvider } from './openai-provider.ts';

/** Where a provider's secrets and transport come from. */
export interface EmbeddingProviderContext {
  env: Readonly<Record<string, string | undefined>>;
  fetch?: typeof fetch;
  baseURL?: string;
}

function key(env: EmbeddingProviderContext['env'], name: string, id: string): string {
  const k = env[name];
  if (!k) throw new EmbeddingProviderError(id, `${name} is not set`);
  return k;
}

/** Creates the provider named by `id`: local:hashing-384, openai:<model>, cohere:<model>, test:deterministic-<dim>. local:transformers:* is not available (see report). */
export function createEmbeddingProvider(id: string, ctx: EmbeddingProviderContext): EmbeddingProvider {
  if (id === 'local:hashing-384') return createHashingProvider(384);
  const det = /^test:deterministic-(\d+)$/.exec(id);
  if (det) return createDeterministicProvider(Number(det[1]));
  if (id.startsWith('openai:'))
    return createOpenAIEmbeddingProvider({ apiKey: key(ctx.env, 'OPENAI_API_KEY', id), model: id.slice(7), baseURL: ctx.baseURL, fetch: ctx.fetch });
  if (id.startsWith('cohere:'))
    return createCohereEmbeddingProvider({ apiKey: key(ctx.env, 'COHERE_API_KEY', id), model: id.slice(7), baseURL: ctx.baseURL, fetch: ctx.fetch });
  if (id.startsWith('local:transformers:'))
    throw new EmbeddingProviderError(id, "needs the optional package '@huggingface/transformers' (npm install @huggingface/transformers) and the model files on local disk; not supported in this build");
  throw new EmbeddingProviderError(id, 'unknown embedding provider id (known: local:hashing-384, openai:<model>, cohere:<model>, test:deterministic-<dim>)');
}
