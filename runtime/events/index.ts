// Public API of the event bus and catalog; other subsystems import from here only.
import type { EventDraft } from './event.ts';
import type { EventPayloads, KnownEventType } from '../../schemas/types/events.ts';

export type { Actor, BusEvent, EventBus, EventDraft, EventFilter, EventHandler, Sensitivity, Subscription, SubscriptionHandle } from './event.ts';
// Payload interfaces generated from schemas/events/ (scripts/gen-event-types.ts).
export type * from '../../schemas/types/events.ts';
export { createEventBus, type EventBusOptions } from './bus.ts';
export { eventCatalog, eventCatalogDigest, isKnownEventType, loadEventCatalog, EVENTS_SCHEMA_DIR, type EventCatalog } from './catalog.ts';
export { EventBusOverflowError, EventCatalogError, EventValidationError } from './errors.ts';
export { matchesFilter } from './filter.ts';

/** A draft whose payload the compiler checks against the catalog type's generated interface. */
export type KnownEventDraft<T extends KnownEventType> = Omit<EventDraft<EventPayloads[T]>, 'type'> & { type: T };
