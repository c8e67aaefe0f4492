// The cache "behind the provider call": a Provider decorator. A served hit returns the cached answer
// with zero usage, so the session's llm.call_completed row is priced at its real cost ($0; an embedding
// price would be added here for a paid embedder) and analyze's savings stay exact. Adapters are untouched.
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
      const out = await cache.complete(request, () => provider.complete(request, signal));
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
