import { describe, expect, it } from 'vitest';
import { CassetteMissError } from '../../runtime/providers/cassette/index.ts';
import { ProviderError } from '../../runtime/providers/provider.ts';
import { NoRouteError } from '../../runtime/routing/index.ts';
import type { RouteChainEntry } from '../../schemas/types/events.ts';
import { SetupError } from '../errors.ts';
import { repFailure } from './rep-error.ts';

const entry = (policy: RouteChainEntry['policy'], verdict: RouteChainEntry['verdict'], validation_failure: string | null = null) =>
  ({ policy, verdict, candidate_model: 'm', reason: '', rule_name: null, confidence: null, pattern_alternatives: null, validation_failure }) as RouteChainEntry;

describe('repFailure', () => {
  it('a router that rejects every model for its window is context_overflow; any other rejection is no_route', () => {
    const overflow = new NoRouteError([entry('manual_sticky', 'rejected', 'exceeds_context_window'), entry('rule', 'not_applicable'), entry('global_default', 'rejected', 'exceeds_context_window')]);
    expect(repFailure(overflow)).toMatchObject({ error_class: 'context_overflow', message: expect.stringContaining('no longer fits') });
    const mixed = new NoRouteError([entry('manual_sticky', 'rejected', 'exceeds_context_window'), entry('global_default', 'rejected', 'no_tool_support')]);
    expect(repFailure(mixed)?.error_class).toBe('no_route');
  });

  it('keeps a provider class, and calls anything else an internal_error with its text', () => {
    expect(repFailure(new ProviderError('bad', 'malformed_response'))).toEqual({ error_class: 'malformed_response', message: 'bad' });
    expect(repFailure(new TypeError('x is not iterable'))).toEqual({ error_class: 'internal_error', message: 'TypeError: x is not iterable' });
    expect(repFailure('a string')?.error_class).toBe('internal_error');
  });

  it('leaves the run-stopping errors to stop the run', () => {
    expect(repFailure(new SetupError('key refused'))).toBeNull();
    expect(repFailure(new CassetteMissError('c.jsonl', 'k', 'm', 'hi'))).toBeNull();
  });
});
