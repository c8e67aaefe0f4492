// Emission of the store's own events (catalog §6.5b). pattern.matched is the router's to emit.
import type { Logger } from '../core/logger.ts';
import type { EventBus, PatternEvictedPayload, PatternMatchedPayload, PatternRecordedPayload } from '../events/index.ts';
import type { EventContext, PatternRecommendation } from './pattern-store.ts';

/** Emits store events; a bus failure is logged, never thrown: the write it reports is already committed. */
export interface PatternEventEmitter {
  /** Returns the event id (parent of a cap-triggered pattern.evicted), or null when not emitted. */
  recorded(ctx: EventContext, payload: PatternRecordedPayload): string | null;
  evicted(ctx: EventContext, parentEventId: string | null, payload: PatternEvictedPayload): void;
  /** False with no bus: nothing would be emitted, so a caller need not build the payloads. */
  readonly live: boolean;
}

/** Creates the emitter; with no bus it does nothing. */
export function createPatternEventEmitter(bus: EventBus | null, logger: Logger): PatternEventEmitter {
  function emit(ctx: EventContext, parent: string | null, type: string, payload: PatternRecordedPayload | PatternEvictedPayload): string | null {
    if (!bus) return null;
    try {
      return bus.emit({ session_id: ctx.session_id, turn_id: ctx.turn_id, parent_event_id: parent, type, actor: 'system', payload }).id;
    } catch (err) {
      logger.log('warn', 'pattern store event not emitted', { event_type: type, error: (err as Error).message });
      return null;
    }
  }
  return {
    live: bus !== null,
    recorded: (ctx, payload) => emit(ctx, ctx.parent_event_id, 'pattern.recorded', payload),
    evicted: (ctx, parent, payload) => void emit(ctx, parent, 'pattern.evicted', payload),
  };
}

/** The pattern.matched payload for a recommendation slot 4 acted on (with its K-cluster rows when the store gave them); null when it chose nothing. `kind`: hybrid when the query was matched on a v2 embedding (§16.8). */
export function patternMatchedPayload(rec: PatternRecommendation, kind: 'structural' | 'hybrid' = 'structural'): PatternMatchedPayload | null {
  if (rec.chosen_model === null) return null;
  return {
    fingerprint_id: rec.fingerprint_id,
    fingerprint_kind: kind,
    chosen_model: rec.chosen_model,
    confidence: rec.confidence,
    sample_size: rec.sample_size,
    k_cluster_size: rec.k_cluster_size,
    alternatives_count: rec.alternatives.length,
    ...(rec.neighbors ? { neighbors: rec.neighbors.map((n) => ({ ...n })) } : {}),
  };
}

/** The pattern.evicted payload for a change from `before` to `after` row counts. */
export function evictedPayload(
  trigger: PatternEvictedPayload['trigger'],
  before: { fingerprints: number; outcomes: number },
  after: { fingerprints: number; outcomes: number },
  oldestAgeDays: number | null,
): PatternEvictedPayload {
  return {
    trigger,
    fingerprints_before: before.fingerprints,
    fingerprints_after: after.fingerprints,
    outcomes_before: before.outcomes,
    outcomes_after: after.outcomes,
    entries_evicted: before.outcomes - after.outcomes,
    oldest_evicted_age_days: oldestAgeDays,
  };
}
