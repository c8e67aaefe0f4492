/** Who emitted an event (catalog §4.1). */
export type Actor = 'user' | 'agent' | 'system' | 'tool' | 'worker';

/** Data sensitivity of an event, most private first (catalog §4.4). */
export type Sensitivity = 'private' | 'user_controlled' | 'pseudonymous' | 'aggregatable';

/** The envelope every event shares (catalog §4.1). `timestamp_us` is UTC microseconds. */
export interface BusEvent<P extends object = Record<string, unknown>> {
  id: string;
  timestamp_us: number;
  session_id: string;
  turn_id: string | null;
  parent_event_id: string | null;
  type: string;
  actor: Actor;
  payload: P;
  sensitivity: Sensitivity;
}

/** What a caller supplies to `emit`; id, timestamp and (by default) sensitivity are filled in by the bus. */
export interface EventDraft<P extends object = Record<string, unknown>> {
  session_id: string;
  turn_id?: string | null;
  parent_event_id?: string | null;
  type: string;
  actor: Actor;
  payload: P;
  /** Only to move toward less private when opt-in fields are absent (catalog §4.4.1). */
  sensitivity?: Sensitivity;
}

/** Subscription filter; an absent dimension matches everything (catalog §3.1). */
export interface EventFilter {
  session_ids?: ReadonlySet<string>;
  event_types?: ReadonlySet<string>;
  actors?: ReadonlySet<Actor>;
}

/** Receives one event; a throw or rejection is logged at WARN and never reaches the emitter. */
export type EventHandler = (event: BusEvent) => void | Promise<void>;

/** A registered interest in events. Fast-path handlers run inside the dispatch worker (catalog §3.4). */
export interface Subscription {
  name: string;
  filter: EventFilter;
  handler: EventHandler;
  fast_path?: boolean;
  /**
   * Fast-path only: called once at the end of each dispatch cycle in which this subscription
   * received at least one event (e.g. the trace writer commits its batch here).
   */
  onIdle?: () => void | Promise<void>;
}

/** Returned by `subscribe`; pass it to `unsubscribe`. */
export interface SubscriptionHandle {
  id: string;
  subscription: Subscription;
}

/** The in-process event bus (catalog §3). */
export interface EventBus {
  /** Validates, stamps and enqueues; returns the stamped event without waiting for any subscriber. */
  emit<P extends object>(draft: EventDraft<P>): BusEvent<P>;
  /** Registers a subscription; it sees events emitted from now on. */
  subscribe(sub: Subscription): SubscriptionHandle;
  /** Idempotent. */
  unsubscribe(handle: SubscriptionHandle): void;
  /** Resolves once every event enqueued so far has been delivered and every handler has settled. */
  drain(): Promise<void>;
  /**
   * False when no active subscription could receive an event of `type` (whatever its session or actor):
   * an emitter may then skip building a payload nobody reads. Optional; absent means true.
   */
  wants?(type: string): boolean;
}
