import { createHash } from 'node:crypto';
import { canonicalJson } from '../../core/canonical-json.ts';
import type { CanonicalRequest } from '../../types/request.ts';

/** SHA-256 of the canonical request (spec §11); `metadata` is local bookkeeping, never part of the key. */
export function requestKey(request: CanonicalRequest): string {
  const { metadata: _metadata, ...wire } = request;
  return createHash('sha256').update(canonicalJson(wire)).digest('hex');
}
