// Which requests a cache tier may answer at all (issue 16, "eligibility first").
import { textOf, type Message } from '../types/content.ts';
import type { CanonicalRequest } from '../types/request.ts';

/** Why a request is not served from a tier; one closed list, reported on `cache.miss`. */
export type IneligibleReason =
  | 'tool_result_continuation'
  | 'tools_requested'
  | 'no_user_query'
  | 'empty_query'
  | 'short_query'
  | 'time_sensitive'
  | 'sampling_not_deterministic';

export type Eligibility = { eligible: true; query: string } | { eligible: false; reason: IneligibleReason };

export interface EligibilityOptions {
  /** Fewer words than this is "very short" (default 3). */
  minWords: number;
  /** Fewer non-space characters than this is "very short" (default 8). */
  minChars: number;
}

export const DEFAULT_ELIGIBILITY: EligibilityOptions = { minWords: 3, minChars: 8 };

// Words whose answer depends on when it is asked. Deliberately broad: a wrong "miss" costs one call,
// a wrong hit serves yesterday's answer.
const TIME_SENSITIVE =
  /\b(today|tonight|tomorrow|yesterday|now|right now|currently|current|latest|newest|recent|recently|this (?:week|month|year|morning|evening)|next (?:week|month|year)|last (?:week|month|year|night)|at the moment|live|breaking|news|weather|forecast|stock price|exchange rate|score of|time is it|what time|what day|what date)\b/i;

function lastMessage(messages: readonly Message[]): Message | undefined {
  return messages.length ? messages[messages.length - 1] : undefined;
}

/** True when the request continues an agent loop: its last message carries a tool result. */
export function isToolResultContinuation(request: CanonicalRequest): boolean {
  const last = lastMessage(request.messages);
  return last !== undefined && last.content.some((b) => b.type === 'tool_result');
}

/** The last user message's text, or null when the request does not end on a user message. */
export function lastUserQuery(request: CanonicalRequest): string | null {
  const last = lastMessage(request.messages);
  return last && last.role === 'user' ? textOf(last.content) : null;
}

/** True for queries whose answer moves with the clock (news, weather, "latest", "today"). */
export function isTimeSensitive(query: string): boolean {
  return TIME_SENSITIVE.test(query);
}

function queryShape(request: CanonicalRequest, options: EligibilityOptions): Eligibility {
  if (isToolResultContinuation(request)) return { eligible: false, reason: 'tool_result_continuation' };
  const query = lastUserQuery(request);
  if (query === null) return { eligible: false, reason: 'no_user_query' };
  const trimmed = query.trim();
  if (!trimmed) return { eligible: false, reason: 'empty_query' };
  const words = trimmed.split(/\s+/).length;
  if (words < options.minWords || trimmed.replace(/\s+/g, '').length < options.minChars) return { eligible: false, reason: 'short_query' };
  return { eligible: true, query: trimmed };
}

/**
 * Tier 1 (exact): the Tier 2 rules (below) and, in addition, temperature 0 unless the caller opted in. A
 * verbatim repeat is no safer than a paraphrase when the world moved: the tools' workspace changed since,
 * "ok" approves a different step, "latest" means something else tomorrow.
 */
export function exactTierEligibility(request: CanonicalRequest, callerOptIn: boolean, options: EligibilityOptions = DEFAULT_ELIGIBILITY): Eligibility {
  const shared = semanticTierEligibility(request, options);
  if (!shared.eligible) return shared;
  if (request.temperature !== 0 && !callerOptIn) return { eligible: false, reason: 'sampling_not_deterministic' };
  return shared;
}

/**
 * Tier 2 (semantic): never a tool-result continuation, never a request that offers tools, never an empty,
 * very short or time-sensitive query.
 */
export function semanticTierEligibility(request: CanonicalRequest, options: EligibilityOptions = DEFAULT_ELIGIBILITY): Eligibility {
  if (isToolResultContinuation(request)) return { eligible: false, reason: 'tool_result_continuation' };
  if (request.tools.length > 0) return { eligible: false, reason: 'tools_requested' };
  const shape = queryShape(request, options);
  if (!shape.eligible) return shape;
  if (isTimeSensitive(shape.query)) return { eligible: false, reason: 'time_sensitive' };
  return shape;
}
