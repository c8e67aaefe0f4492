// How a rep that could not finish is classified, so the suite goes on and the report says why.
import { CassetteMissError } from '../../runtime/providers/cassette/index.ts';
import { ProviderError, type ProviderErrorClass } from '../../runtime/providers/provider.ts';
import { NoRouteError } from '../../runtime/routing/decide-route.ts';
import { SetupError } from '../errors.ts';

/**
 * A rep's `error_class`: the provider's class of the call that failed for good (llm.call_failed),
 * or one of the harness's: `context_overflow` also when no model's window holds the conversation
 * any more (the router found none), `no_route` when no model passed the router for another reason,
 * `iteration_limit` (the model never ended its turn), `budget_stopped` (`--max-cost`),
 * `interrupted` (Ctrl-C), `resource_limit` (a sandbox bound: disk, processes, the rep's wall time;
 * the message names it), `internal_error` (a fault of ours the model's behaviour provoked; its
 * stack goes to the report's warnings).
 */
export type RepErrorClass = ProviderErrorClass | 'no_route' | 'iteration_limit' | 'budget_stopped' | 'interrupted' | 'resource_limit' | 'internal_error';

/** A classified rep failure. */
export interface RepFailure {
  error_class: RepErrorClass;
  message: string;
}

/**
 * The classified failure for an error a turn threw, or null for the errors that must stop the whole
 * run instead (a setup problem such as a refused key, a replay that lacks a request).
 */
export function repFailure(e: unknown): RepFailure | null {
  if (e instanceof SetupError || e instanceof CassetteMissError) return null;
  if (e instanceof NoRouteError) {
    const rejected = e.chain.filter((c) => c.verdict === 'rejected');
    const overflow = rejected.length > 0 && rejected.every((c) => c.validation_failure === 'exceeds_context_window');
    return overflow
      ? { error_class: 'context_overflow', message: `the conversation no longer fits the context window of any model the router may use (${e.message})` }
      : { error_class: 'no_route', message: e.message };
  }
  if (e instanceof ProviderError) return { error_class: e.errorClass, message: e.message };
  const text = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
  return { error_class: 'internal_error', message: text.slice(0, 2000) };
}
