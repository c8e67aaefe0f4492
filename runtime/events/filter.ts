import type { BusEvent, EventFilter } from './event.ts';

/** True when `event` passes every dimension of `filter`; an absent dimension matches all (catalog §3.1). */
export function matchesFilter(filter: EventFilter, event: BusEvent): boolean {
  return (
    (!filter.session_ids || filter.session_ids.has(event.session_id)) &&
    (!filter.event_types || filter.event_types.has(event.type)) &&
    (!filter.actors || filter.actors.has(event.actor))
  );
}
