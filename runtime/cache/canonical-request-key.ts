// Tier 1's key: a SHA-256 of the canonical request (model, system, tools, every message, sampling).
import { createHash } from 'node:crypto';
import { canonicalJson } from '../core/canonical-json.ts';
import type { CanonicalRequest } from '../types/request.ts';

/** Who a cached answer belongs to; answers never cross a scope. */
export interface CacheScope {
  tenant: string;
  workspace: string;
}

/**
 * The exact-match key. Everything that can change the answer is in it: the scope, model, both system
 * segments, tools, the full message history, temperature and max_tokens. `metadata` is not (never sent).
 */
export function exactRequestKey(request: CanonicalRequest, scope: CacheScope): string {
  const body = canonicalJson({
    scope,
    model: request.model,
    system: request.system,
    system_volatile: request.system_volatile,
    tools: request.tools,
    messages: request.messages,
    temperature: request.temperature,
    max_tokens: request.max_tokens,
  });
  return createHash('sha256').update(body).digest('hex');
}
