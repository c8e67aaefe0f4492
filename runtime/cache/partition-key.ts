// Tier 2 partitions: a semantic match is only looked for among requests with the same scope, system
// prompt, tools and recent conversation, so "and the second one?" never matches across conversations.
import { createHash } from 'node:crypto';
import { canonicalJson } from '../core/canonical-json.ts';
import type { CanonicalRequest } from '../types/request.ts';
import type { CacheScope } from './canonical-request-key.ts';

/** How many messages before the query belong to the partition (default 4: two exchanges). */
export const DEFAULT_PARTITION_TURNS = 4;

/**
 * SHA-256 of (scope, model, system segments, tool specs, the last `turns` messages before the final one).
 * The final user message is what the embedding compares; everything else must match exactly.
 */
export function partitionKey(request: CanonicalRequest, scope: CacheScope, turns: number = DEFAULT_PARTITION_TURNS): string {
  if (!Number.isInteger(turns) || turns < 0) throw new RangeError(`partition turns must be a whole number >= 0, got ${turns}`);
  const history = request.messages.slice(0, -1);
  const context = turns === 0 ? [] : history.slice(-turns);
  const body = canonicalJson({
    scope,
    model: request.model,
    system: request.system,
    system_volatile: request.system_volatile,
    tools: request.tools,
    context,
    // Earlier history still matters when it exists at all: its length separates a fresh question from a follow-up.
    history_length: history.length,
  });
  return createHash('sha256').update(body).digest('hex');
}
