// A 2xx answer that is not the shape its API promises is the provider's failure, classified, never a TypeError.
import { ProviderError } from './provider.ts';

/** How a value looks, for messages: `undefined`, `null`, `an array`, `a string`, `an object`... */
export function describeValue(v: unknown): string {
  if (v === undefined) return 'undefined';
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  const t = typeof v;
  return t === 'object' ? 'an object' : `a ${t}`;
}

/** The ProviderError for an answer with a missing or mistyped field (`where` names it, e.g. `content[2].text`). */
export function malformedResponse(provider: string, where: string, expected: string, got: unknown): ProviderError {
  return new ProviderError(`${provider}: malformed response: ${where} should be ${expected}, got ${describeValue(got)}`, 'malformed_response');
}

/** True for a plain JSON object (not null, not an array). */
export const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
