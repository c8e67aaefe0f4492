// The cache's event types (schemas/events/cache.*.json) and the sink the cache reports through; the
// caller binds it to the bus with its session, so the cache itself stays free of session state.

export type CacheEventType = 'cache.hit' | 'cache.miss' | 'cache.set' | 'cache.evicted';

export type CacheEventSink = (type: CacheEventType, payload: Record<string, unknown>) => void;
