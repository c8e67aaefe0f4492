import type { Clock } from '../core/clock.ts';
import { newId, type IdFactory } from '../core/ids.ts';
import type { Logger } from '../core/logger.ts';
import { formatAjvErrors } from '../core/schemas.ts';
import { eventCatalog, type EventCatalog } from './catalog.ts';
import { EventBusOverflowError, EventValidationError } from './errors.ts';
import type { Actor, BusEvent, EventBus, EventDraft, Sensitivity, Subscription, SubscriptionHandle } from './event.ts';
import { matchesFilter } from './filter.ts';

/** Options for `createEventBus`. */
export interface EventBusOptions {
  /** strict: bad events throw EventValidationError; lenient: logged and dropped, unknown types pass. */
  mode: 'strict' | 'lenient';
  logger: Logger;
  clock: Clock;
  /** Event ids; defaults to the process-wide monotonic factory so ids from several buses still sort. */
  ids?: IdFactory;
  /** Events waiting for dispatch before `emit` throws EventBusOverflowError. Default 10,000. */
  maxQueue?: number;
  /** Defaults to the project's catalog in schemas/events/. */
  catalog?: EventCatalog;
}

const ACTORS: ReadonlySet<string> = new Set<Actor>(['user', 'agent', 'system', 'tool', 'worker']);
const SENSITIVITIES: ReadonlySet<string> = new Set<Sensitivity>(['private', 'user_controlled', 'pseudonymous', 'aggregatable']);
/** §4.4: a type with no catalog line is treated as the most private class. */
const UNKNOWN_TYPE_SENSITIVITY: Sensitivity = 'private';

interface Registration {
  readonly handle: SubscriptionHandle;
  readonly sub: Subscription;
  active: boolean;
  /** Set when the subscription received an event in the current cycle, so `onIdle` runs once. */
  touched: boolean;
  /** Non-fast subscriptions: the tail of each session's handler chain, which keeps per-session order. */
  readonly tails: Map<string, Promise<void>>;
}

/**
 * Creates the in-process event bus (catalog §3). `emit` validates, stamps and enqueues only; a
 * worker scheduled with setImmediate fans events out, fast-path handlers inline, others on
 * per-(subscription, session) promise chains so a slow handler never blocks the worker.
 * The payload object is delivered as given, not copied: do not mutate it after `emit`.
 */
export function createEventBus(options: EventBusOptions): EventBus {
  const { mode, logger, clock } = options;
  const ids = options.ids ?? newId;
  const maxQueue = options.maxQueue ?? 10_000;
  const catalog = options.catalog ?? eventCatalog();
  // Precompile every validator now so the first emit of each type stays cheap.
  for (const entry of catalog.entries) catalog.validator(entry.type);

  let queue: BusEvent[] = [];
  let head = 0;
  let scheduled = false;
  let dispatching = false;
  let overflowLogged = false;
  let registrations: readonly Registration[] = [];
  const pending = new Set<Promise<void>>();

  function warnHandlerFailed(sub: Subscription, event: BusEvent | null, err: unknown, phase = 'handler'): void {
    // A log, never a bus event: an all-types subscriber that fails must not feed itself (§5.2).
    logger.log('warn', `event ${phase} failed`, {
      subscriber: sub.name,
      event_id: event?.id ?? null,
      event_type: event?.type ?? null,
      error: err instanceof Error ? err.message : String(err),
    });
  }

  function track(p: Promise<void>): void {
    pending.add(p);
    void p.finally(() => pending.delete(p));
  }

  function reject(type: string, problems: string[], event: BusEvent): void {
    if (mode === 'strict') throw new EventValidationError(type, problems);
    logger.log('warn', 'invalid event dropped', { event_type: type, event_id: event.id, session_id: event.session_id, errors: problems });
  }

  function deliverFast(reg: Registration, event: BusEvent): void {
    reg.touched = true;
    try {
      const result = reg.sub.handler(event);
      if (result) track(result.then(undefined, (err: unknown) => warnHandlerFailed(reg.sub, event, err)));
    } catch (err) {
      warnHandlerFailed(reg.sub, event, err);
    }
  }

  function deliverQueued(reg: Registration, event: BusEvent): void {
    const run = async (): Promise<void> => {
      if (!reg.active) return;
      try {
        await reg.sub.handler(event);
      } catch (err) {
        warnHandlerFailed(reg.sub, event, err);
      }
    };
    const sid = event.session_id;
    const next = (reg.tails.get(sid) ?? Promise.resolve()).then(run);
    reg.tails.set(sid, next);
    track(
      next.then(() => {
        if (reg.tails.get(sid) === next) reg.tails.delete(sid);
      }),
    );
  }

  function runIdleHooks(regs: readonly Registration[]): void {
    for (const reg of regs) {
      if (!reg.touched) continue;
      reg.touched = false;
      if (!reg.active || !reg.sub.onIdle) continue;
      try {
        const result = reg.sub.onIdle();
        if (result) track(result.then(undefined, (err: unknown) => warnHandlerFailed(reg.sub, null, err, 'onIdle hook')));
      } catch (err) {
        warnHandlerFailed(reg.sub, null, err, 'onIdle hook');
      }
    }
  }

  /** One dispatch cycle: drains everything queued, including events emitted by fast handlers. */
  function dispatch(): void {
    scheduled = false;
    if (dispatching) return;
    dispatching = true;
    overflowLogged = false;
    const seen = new Set<Registration>();
    try {
      while (head < queue.length) {
        const event = queue[head++]!;
        // Snapshot per event: subscribe/unsubscribe inside a handler takes effect from the next event.
        for (const reg of registrations) {
          if (!reg.active || !matchesFilter(reg.sub.filter, event)) continue;
          if (reg.sub.fast_path) {
            seen.add(reg);
            deliverFast(reg, event);
          } else deliverQueued(reg, event);
        }
      }
    } finally {
      queue = [];
      head = 0;
      dispatching = false;
    }
    runIdleHooks([...seen]);
  }

  function wants(type: string): boolean {
    for (const reg of registrations) if (reg.active && (!reg.sub.filter.event_types || reg.sub.filter.event_types.has(type))) return true;
    return false;
  }

  function schedule(): void {
    if (scheduled || dispatching) return;
    scheduled = true;
    setImmediate(dispatch);
  }

  return {
    emit<P extends object>(draft: EventDraft<P>): BusEvent<P> {
      const type = draft.type;
      const entry = catalog.entry(type);
      const event: BusEvent<P> = {
        id: ids(),
        timestamp_us: clock.nowUs(),
        session_id: draft.session_id,
        turn_id: draft.turn_id ?? null,
        parent_event_id: draft.parent_event_id ?? null,
        type,
        actor: draft.actor,
        payload: draft.payload,
        sensitivity: draft.sensitivity ?? entry?.sensitivity ?? UNKNOWN_TYPE_SENSITIVITY,
      };
      if (typeof event.session_id !== 'string' || event.session_id === '' || !ACTORS.has(event.actor) || !SENSITIVITIES.has(event.sensitivity)) {
        reject(type, [`envelope: session_id must be a non-empty string, actor one of ${[...ACTORS].join('|')}, sensitivity one of ${[...SENSITIVITIES].join('|')}`], event as BusEvent);
        return event;
      }
      // Lenient mode (production): an event no subscription can receive is stamped and returned, not
      // validated or queued, so events nobody reads cost an id. Strict mode (tests) validates every event.
      if (mode === 'lenient' && !wants(type)) return event;
      if (entry) {
        const validate = catalog.validator(type)!;
        if (!validate(draft.payload)) {
          reject(type, formatAjvErrors(validate.errors), event as BusEvent);
          return event;
        }
      } else if (mode === 'strict') {
        throw new EventValidationError(type, ['unknown event type (not in schemas/events/catalog.json)']);
      } else {
        // Forward compatibility (§9.1 test 9): a type from a newer catalog passes through.
        logger.log('debug', 'unknown event type passed through', { event_type: type, event_id: event.id });
      }
      if (queue.length - head >= maxQueue) {
        if (!overflowLogged) {
          overflowLogged = true;
          logger.log('error', 'event bus queue full; emit rejected', { max_queue: maxQueue, event_type: type, session_id: event.session_id });
        }
        throw new EventBusOverflowError(maxQueue, type);
      }
      queue.push(event as BusEvent);
      schedule();
      return event;
    },

    subscribe(sub: Subscription): SubscriptionHandle {
      const handle: SubscriptionHandle = { id: ids('sub'), subscription: sub };
      registrations = [...registrations, { handle, sub, active: true, touched: false, tails: new Map() }];
      return handle;
    },

    unsubscribe(handle: SubscriptionHandle): void {
      const reg = registrations.find((r) => r.handle.id === handle.id);
      if (!reg) return;
      reg.active = false;
      registrations = registrations.filter((r) => r !== reg);
    },

    wants,

    async drain(): Promise<void> {
      // Handlers may emit while we wait, so loop until nothing is queued or in flight.
      for (;;) {
        if (head < queue.length) dispatch();
        if (pending.size === 0 && head >= queue.length) return;
        await Promise.all(pending);
      }
    },
  };
}
