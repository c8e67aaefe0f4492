// The v2 embedding contract (pattern-store.md §16.2): every provider answers L2-normalised vectors.

/** A text-embedding backend; outputs are L2-normalised Float32Arrays of length `dim`. */
export interface EmbeddingProvider {
  readonly provider_id: string;
  readonly dim: number;
  readonly max_input_tokens: number;
  embed(texts: string[]): Promise<Float32Array[]>;
  /**
   * The same call, with the input tokens the API billed when it reports them (null when it does not).
   * Paid remote providers implement it so their price can be charged; local ones need not.
   */
  embedWithUsage?(texts: string[]): Promise<EmbedResult>;
  close(): Promise<void>;
}

/** Vectors of one embed call and the input tokens it was billed for (null: not reported). */
export interface EmbedResult {
  vectors: Float32Array[];
  input_tokens: number | null;
}

/** A whole, non-negative token count from an API body field, or null when absent or malformed. */
export function reportedTokens(x: unknown): number | null {
  return typeof x === 'number' && Number.isInteger(x) && x >= 0 ? x : null;
}

/** Thrown when a provider cannot embed (bad key, HTTP error, missing package); never carries the key. */
export class EmbeddingProviderError extends Error {
  constructor(
    readonly provider_id: string,
    message: string,
  ) {
    super(`${provider_id}: ${message}`);
    this.name = 'EmbeddingProviderError';
  }
}

/**
 * Runtime check of the §16.2 contract (§16.10 test 1): provider_id, a whole dim >= 0 (0 only for a
 * read-only stand-in that embeds nothing), max_input_tokens, embed and close. Throws a TypeError naming the gap.
 */
export function assertEmbeddingProvider(x: unknown): asserts x is EmbeddingProvider {
  const p = (x ?? {}) as Partial<Record<keyof EmbeddingProvider, unknown>>;
  const gaps = [
    typeof p.provider_id === 'string' && p.provider_id ? null : 'provider_id',
    typeof p.dim === 'number' && Number.isInteger(p.dim) && p.dim >= 0 ? null : 'dim',
    typeof p.max_input_tokens === 'number' ? null : 'max_input_tokens',
    typeof p.embed === 'function' ? null : 'embed',
    typeof p.close === 'function' ? null : 'close',
  ].filter((g) => g !== null);
  if (gaps.length) throw new TypeError(`not an EmbeddingProvider: missing or invalid ${gaps.join(', ')}`);
}

/** Scales `v` in place to unit length (a zero vector stays zero) and returns it. */
export function l2Normalize(v: Float32Array): Float32Array {
  let ss = 0;
  for (let i = 0; i < v.length; i++) ss += v[i]! * v[i]!;
  if (ss > 0) {
    const inv = 1 / Math.sqrt(ss);
    for (let i = 0; i < v.length; i++) v[i] = v[i]! * inv;
  }
  return v;
}

/** Dot product; equals cosine for normalised inputs. Lengths must match. */
export function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

/** Packs a vector as little-endian float32 bytes for a BLOB column. */
export function packVector(v: Float32Array): Buffer {
  return Buffer.from(v.buffer, v.byteOffset, v.byteLength).subarray(0);
}

/** Unpacks a float32 BLOB (copies, so the result is aligned and owned). */
export function unpackVector(b: Uint8Array): Float32Array {
  const out = new Float32Array(b.byteLength / 4);
  new Uint8Array(out.buffer).set(b);
  return out;
}
