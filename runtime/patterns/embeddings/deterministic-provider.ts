// test:deterministic-<dim>: unrelated texts get unrelated vectors, equal texts equal ones; for tests only.
import { createHash } from 'node:crypto';
import { l2Normalize, type EmbeddingProvider } from './embedding-provider.ts';

/** A vector seeded from SHA-256(text): components from a counter-mode hash stream, L2-normalised. */
export function deterministicEmbed(text: string, dim: number): Float32Array {
  const v = new Float32Array(dim);
  let block = 0;
  let bytes = Buffer.alloc(0);
  for (let i = 0; i < dim; i++) {
    if ((i * 4) % 32 === 0) bytes = createHash('sha256').update(`${block++}\0${text}`).digest();
    v[i] = bytes.readInt32LE((i * 4) % 32) / 2 ** 31;
  }
  return l2Normalize(v);
}

/** The `test:deterministic-<dim>` provider; counts embedded texts so tests can see cache hits. */
export function createDeterministicProvider(dim: number): EmbeddingProvider & { calls: number } {
  const p = {
    provider_id: `test:deterministic-${dim}`,
    dim,
    max_input_tokens: 8_192,
    calls: 0,
    embed(texts: string[]) {
      p.calls += texts.length;
      return Promise.resolve(texts.map((t) => deterministicEmbed(t, dim)));
    },
    close: () => Promise.resolve(),
  };
  return p;
}
