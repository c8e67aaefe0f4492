import { createIdFactory } from '../../core/ids.ts';
import type { BusEvent, EventBus, EventDraft, SubscriptionHandle } from '../../events/event.ts';

/** An EventBus that only records what is emitted, in order; for tests that check event chains. */
export interface RecordingBus extends EventBus {
  events: BusEvent[];
  /** Events of one type, in emit order. */
  ofType(type: string): BusEvent[];
}

/** Creates a recording bus; ids are monotonic ULIDs, timestamps count up from 1. */
export function createRecordingBus(): RecordingBus {
  const newId = createIdFactory(() => 0);
  const events: BusEvent[] = [];
  let t = 0;
  return {
    events,
    ofType: (type) => events.filter((e) => e.type === type),
    emit<P extends object>(draft: EventDraft<P>): BusEvent<P> {
      const event: BusEvent<P> = {
        id: newId(),
        timestamp_us: ++t,
        session_id: draft.session_id,
        turn_id: draft.turn_id ?? null,
        parent_event_id: draft.parent_event_id ?? null,
        type: draft.type,
        actor: draft.actor,
        payload: draft.payload,
        sensitivity: draft.sensitivity ?? 'private',
      };
      events.push(event as unknown as BusEvent);
      return event;
    },
    subscribe(subscription): SubscriptionHandle {
      return { id: newId(), subscription };
    },
    unsubscribe() {},
    drain: () => Promise.resolve(),
  };
}
