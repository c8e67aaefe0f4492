import { createHash } from 'node:crypto';
import { canonicalJson } from '../core/canonical-json.ts';

export { canonicalJson };

/** SHA-256 (hex) and UTF-8 size of a tool input's canonical JSON (catalog tool.called). */
export function inputDigest(input: unknown): { input_hash: string; input_size_bytes: number } {
  const text = canonicalJson(input);
  return { input_hash: createHash('sha256').update(text).digest('hex'), input_size_bytes: Buffer.byteLength(text, 'utf8') };
}
