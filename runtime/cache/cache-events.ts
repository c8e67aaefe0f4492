// The cache's event types (schemas/events/cache.*.json) and the sink the cache reports through. Each
// event comes with the request that caused it, so the caller can attach it to that request's session
// (runtime/events/call-context.ts); the cache itself stays free of session state.
import type { CanonicalRequest } from '../types/request.ts';

export type CacheEventType = 'cache.hit' | 'cache.miss' | 'cache.set' | 'cache.evicted';

export type CacheEventSink = (type: CacheEventType, payload: Record<string, unknown>, request: CanonicalRequest) => void;
