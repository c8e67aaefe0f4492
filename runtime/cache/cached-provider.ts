// The cache "behind the provider call": a Provider decorator. A served hit returns the cached answer
// with zero usage and `served_from_cache` set, so the session's llm.call_completed row is priced at its
// real cost ($0 with a local embedder) and marked with its tier, and analyze's savings stay exact.
// Adapters are untouched.
import { callContextOf } from '../events/call-context.ts';
import type { EventBus } from '../events/event.ts';
import type { Provider } from '../providers/provider.ts';
import type { CacheEventSink } from './cache-events.ts';
import type { SemanticCache } from './semantic-cache.ts';

/** Wraps `provider` so every `complete` goes through `cache` first. */
export function createCachedProvider(provider: Provider, cache: SemanticCache): Provider {
  return {
    name: provider.name,
    capabilities: (model) => provider.capabilities(model),
    async complete(request, signal) {
      // The third argument lets Tier 3 make one call per workflow step of a request carrying documents.
      const out = await cache.complete(request, () => provider.complete(request, signal), (step) => provider.complete(step, signal));
      return out.response;
    },
  };
}

/** A sink that emits the cache's events on `bus` under `sessionId` (the run's, or one per cache). */
export function busCacheSink(bus: EventBus, sessionId: string): CacheEventSink {
  return (type, payload) => {
    bus.emit({ session_id: sessionId, type, actor: 'system', payload });
  };
}

/**
 * A sink that emits each event under the session, turn and llm.call_started of the call that caused it
 * (the request's call context, set by the agent loop), so the trace holds it in order between that
 * call's llm.call_started and llm.call_completed. A request made outside a traced session goes to
 * `fallback`, or nowhere when there is none.
 */
export function traceCacheSink(bus: EventBus, fallback: CacheEventSink | null = null): CacheEventSink {
  return (type, payload, request) => {
    const ctx = callContextOf(request);
    if (!ctx) return fallback?.(type, payload, request);
    bus.emit({ session_id: ctx.session_id, turn_id: ctx.turn_id, parent_event_id: ctx.call_event_id, type, actor: 'system', payload });
  };
}
