// local:hashing-384 (§16.2): the offline default. Feature hashing, no weights, no download, deterministic.
import { l2Normalize, type EmbeddingProvider } from './embedding-provider.ts';

/** FNV-1a 32-bit over UTF-16 code units (fixed and documented so vectors never change across versions). */
export function fnv1a32(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

function add(v: Float32Array, feature: string, weight: number): void {
  const h = fnv1a32(feature);
  // Low bits pick the bucket, the top bit the sign, so collisions cancel in expectation.
  const bucket = h % v.length;
  v[bucket] = v[bucket]! + ((h & 0x80000000) !== 0 ? -weight : weight);
}

/** Hashes word unigrams+bigrams and character 3–5-grams of lower-cased `text` into `dim` signed buckets, L2-normalised. */
export function hashingEmbed(text: string, dim: number): Float32Array {
  const v = new Float32Array(dim);
  const lower = text.toLowerCase();
  const words = lower.match(/[\p{L}\p{N}_]+/gu) ?? [];
  for (let i = 0; i < words.length; i++) {
    add(v, `w:${words[i]}`, 1);
    if (i + 1 < words.length) add(v, `b:${words[i]} ${words[i + 1]}`, 1);
  }
  const padded = ` ${words.join(' ')} `;
  for (let n = 3; n <= 5; n++) for (let i = 0; i + n <= padded.length; i++) add(v, `c${n}:${padded.slice(i, i + n)}`, 0.5);
  return l2Normalize(v);
}

/** The `local:hashing-384` provider. */
export function createHashingProvider(dim = 384): EmbeddingProvider {
  return {
    provider_id: `local:hashing-${dim}`,
    dim,
    max_input_tokens: Number.POSITIVE_INFINITY,
    embed: (texts) => Promise.resolve(texts.map((t) => hashingEmbed(t, dim))),
    close: () => Promise.resolve(),
  };
}
