import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createSystemClock, createVirtualClock } from '../core/clock.ts';
import { createMemoryLogger } from '../core/logger.ts';
import {
  createEventBus,
  eventCatalog,
  EventBusOverflowError,
  EventValidationError,
  isKnownEventType,
  type BusEvent,
  type EventBus,
  type EventBusOptions,
  type KnownEventType,
  type Subscription,
} from './index.ts';
import { sampleDraft, samplePayloads } from './test-support/sample-payloads.ts';

const TYPES = Object.keys(samplePayloads) as KnownEventType[];

function makeBus(overrides: Partial<EventBusOptions> = {}) {
  const logger = createMemoryLogger();
  const bus = createEventBus({ mode: 'strict', logger, clock: createVirtualClock(1_700_000_000_000_000), ...overrides });
  return { bus, logger };
}

/** Subscribes a recorder; `fast` picks the delivery path. */
function record(bus: EventBus, sub: Partial<Subscription> = {}): BusEvent[] {
  const seen: BusEvent[] = [];
  bus.subscribe({ name: 'recorder', filter: {}, handler: (e) => void seen.push(e), fast_path: true, ...sub });
  return seen;
}

/** Three ways to break a payload: an unknown key, a missing required key, a wrong type. */
function invalidVariants(type: KnownEventType): [string, Record<string, unknown>][] {
  const valid = samplePayloads[type] as unknown as Record<string, unknown>;
  const [firstKey] = Object.keys(valid);
  const { [firstKey!]: _dropped, ...missing } = valid;
  return [
    ['unknown key', { ...valid, not_in_catalog: 1 }],
    ['missing required key', missing],
    ['wrong type', { ...valid, [firstKey!]: { nested: true } }],
  ];
}

describe('validation (catalog §9.1 test 1)', () => {
  it('covers every catalog type with a sample payload', () => {
    expect(TYPES.sort()).toEqual(eventCatalog().entries.map((e) => e.type).sort());
  });

  it.each(TYPES)('%s: a valid payload is accepted and delivered', async (type) => {
    const { bus } = makeBus();
    const seen = record(bus);
    const emitted = bus.emit(sampleDraft(type));
    await bus.drain();
    expect(seen).toEqual([emitted]);
    expect(emitted.payload).toEqual(samplePayloads[type]);
  });

  it.each(TYPES)('%s: invalid payloads throw in strict mode, naming the problem', async (type) => {
    const { bus } = makeBus();
    const seen = record(bus);
    for (const [, payload] of invalidVariants(type)) {
      const err = (() => {
        try {
          bus.emit({ ...sampleDraft(type), payload });
        } catch (e) {
          return e;
        }
      })();
      expect(err).toBeInstanceOf(EventValidationError);
      expect((err as EventValidationError).eventType).toBe(type);
      expect((err as EventValidationError).problems.length).toBeGreaterThan(0);
      expect((err as Error).message).toContain((err as EventValidationError).problems[0]);
    }
    await bus.drain();
    expect(seen).toEqual([]);
  });

  it.each(TYPES)('%s: invalid payloads are logged at WARN and dropped in lenient mode', async (type) => {
    const { bus, logger } = makeBus({ mode: 'lenient' });
    const seen = record(bus);
    for (const [, payload] of invalidVariants(type)) {
      const returned = bus.emit({ ...sampleDraft(type), payload });
      expect(returned.type).toBe(type);
    }
    await bus.drain();
    expect(seen).toEqual([]);
    const warns = logger.records.filter((r) => r.level === 'warn');
    expect(warns).toHaveLength(3);
    expect(warns[0]!.fields).toMatchObject({ event_type: type });
    expect((warns[0]!.fields!.errors as string[]).join()).toContain('not_in_catalog');
  });

  it('rejects money as a float and accepts Decimal strings', () => {
    const { bus } = makeBus();
    const draft = sampleDraft('llm.call_completed');
    expect(() => bus.emit({ ...draft, payload: { ...draft.payload, cost_usd: 0.01 as unknown as string } })).toThrow(/cost_usd/);
    expect(() => bus.emit({ ...draft, payload: { ...draft.payload, cost_usd: '1e-3' } })).toThrow(/cost_usd/);
    expect(() => bus.emit({ ...draft, payload: { ...draft.payload, cost_usd: '-0.000001' } })).not.toThrow();
  });

  it('accepts the additive gateway/user fields as absent, null or set', () => {
    const { bus } = makeBus();
    const draft = sampleDraft('llm.call_completed');
    expect(() => bus.emit({ ...draft, payload: { ...draft.payload, user_id: null, team_id: null, gateway_key_id: null, inbound_shape: null } })).not.toThrow();
    expect(() => bus.emit({ ...draft, payload: { ...draft.payload, user_id: 'usr_1', inbound_shape: 'openai' } })).not.toThrow();
    expect(() => bus.emit({ ...draft, payload: { ...draft.payload, inbound_shape: 'grpc' as 'openai' } })).toThrow(EventValidationError);
  });

  it('strict mode throws on an unknown type and on a malformed envelope', () => {
    const { bus } = makeBus();
    expect(() => bus.emit({ session_id: 's', type: 'future.thing', actor: 'system', payload: {} })).toThrow(EventValidationError);
    expect(() => bus.emit({ ...sampleDraft('session.ended'), actor: 'robot' as 'system' })).toThrow(/actor/);
    expect(() => bus.emit({ ...sampleDraft('session.ended'), session_id: '' })).toThrow(/session_id/);
  });
});

describe('dispatch', () => {
  it('emit returns the stamped event before any handler runs', async () => {
    const { bus } = makeBus();
    const seen = record(bus);
    const e = bus.emit(sampleDraft('turn.started', { turn_id: 'turn_1', parent_event_id: 'x' }));
    expect(seen).toEqual([]);
    expect(e).toMatchObject({ session_id: 'sess_1', turn_id: 'turn_1', parent_event_id: 'x', actor: 'system', sensitivity: 'private' });
    expect(typeof e.id).toBe('string');
    await bus.drain();
    expect(seen).toEqual([e]);
  });

  it('ids strictly increase and timestamps never decrease', async () => {
    for (const clock of [createSystemClock(), createVirtualClock(5)]) {
      const { bus } = makeBus({ clock });
      const events = Array.from({ length: 500 }, (_, i) => bus.emit(sampleDraft(TYPES[i % TYPES.length]!, { session_id: `s${i % 3}` })));
      for (let i = 1; i < events.length; i++) {
        expect(events[i]!.id > events[i - 1]!.id).toBe(true);
        expect(events[i]!.timestamp_us).toBeGreaterThanOrEqual(events[i - 1]!.timestamp_us);
      }
      await bus.drain();
    }
  });

  it('stamps the timestamp from the injected clock', () => {
    const clock = createVirtualClock(42);
    const { bus } = makeBus({ clock });
    expect(bus.emit(sampleDraft('session.ended')).timestamp_us).toBe(42);
    clock.advanceUs(10);
    expect(bus.emit(sampleDraft('session.ended')).timestamp_us).toBe(52);
  });

  it('drain() awaits slow async handlers, including events they emit', async () => {
    const { bus } = makeBus();
    const done: string[] = [];
    bus.subscribe({
      name: 'slow',
      filter: { event_types: new Set(['turn.started']) },
      handler: async (e) => {
        await new Promise((r) => setTimeout(r, 30));
        done.push(e.id);
        bus.emit(sampleDraft('turn.completed', { parent_event_id: e.id }));
      },
    });
    const follow = record(bus, { filter: { event_types: new Set(['turn.completed']) } });
    const started = bus.emit(sampleDraft('turn.started'));
    await bus.drain();
    expect(done).toEqual([started.id]);
    expect(follow.map((e) => e.parent_event_id)).toEqual([started.id]);
  });

  it('a slow non-fast handler does not hold back the worker or other sessions', async () => {
    const { bus } = makeBus();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const slowSeen: string[] = [];
    bus.subscribe({
      name: 'blocking',
      filter: {},
      handler: async (e) => {
        if (e.session_id === 'A') await gate;
        slowSeen.push(`${e.session_id}:${e.type}`);
      },
    });
    const fast = record(bus);
    bus.emit(sampleDraft('session.created', { session_id: 'A' }));
    bus.emit(sampleDraft('session.created', { session_id: 'B' }));
    bus.emit(sampleDraft('session.ended', { session_id: 'B' }));
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    expect(fast).toHaveLength(3);
    expect(slowSeen).toEqual(['B:session.created', 'B:session.ended']);
    release();
    await bus.drain();
    expect(slowSeen).toEqual(['B:session.created', 'B:session.ended', 'A:session.created']);
  });

  it('calls onIdle once per dispatch cycle for a fast-path subscription that received events', async () => {
    const { bus } = makeBus();
    let idle = 0;
    let received = 0;
    bus.subscribe({ name: 'batcher', filter: {}, fast_path: true, handler: () => void received++, onIdle: () => void idle++ });
    for (let i = 0; i < 5; i++) bus.emit(sampleDraft('session.ended'));
    await bus.drain();
    expect([received, idle]).toEqual([5, 1]);
    bus.emit(sampleDraft('session.ended'));
    await bus.drain();
    expect([received, idle]).toEqual([6, 2]);
  });

  it('unsubscribe stops delivery, including events already queued, and is idempotent', async () => {
    const { bus } = makeBus();
    const seen: BusEvent[] = [];
    const handle = bus.subscribe({ name: 'x', filter: {}, handler: (e) => void seen.push(e) });
    bus.emit(sampleDraft('session.ended'));
    bus.unsubscribe(handle);
    bus.unsubscribe(handle);
    await bus.drain();
    expect(seen).toEqual([]);
  });
});

describe('subscriber error isolation (catalog §9.1 tests 5 and 14)', () => {
  it.each([true, false])('fast_path=%s: a throwing handler is logged at WARN, keeps its subscription, others get every event', async (fast) => {
    const { bus, logger } = makeBus();
    let failures = 0;
    bus.subscribe({
      name: 'always-fails',
      filter: {},
      fast_path: fast,
      handler: fast
        ? () => {
            failures++;
            throw new Error('boom');
          }
        : async () => {
            failures++;
            throw new Error('boom');
          },
    });
    const good = record(bus);
    const emitted = TYPES.map((t) => bus.emit(sampleDraft(t)));
    await bus.drain();
    expect(good).toEqual(emitted);
    expect(failures).toBe(TYPES.length);
    const warns = logger.records.filter((r) => r.level === 'warn');
    // Bounded: exactly one WARN per failed delivery, no recursion, no bus event about it.
    expect(warns).toHaveLength(TYPES.length);
    expect(warns[0]!.fields).toMatchObject({ subscriber: 'always-fails', event_id: emitted[0]!.id, event_type: emitted[0]!.type, error: 'boom' });
    expect(good.every((e) => isKnownEventType(e.type))).toBe(true);
    // Still subscribed: the next event reaches it too.
    bus.emit(sampleDraft('session.ended'));
    await bus.drain();
    expect(failures).toBe(TYPES.length + 1);
  });
});

describe('filters (catalog §9.1 test 6)', () => {
  it('delivers only matching events on each dimension and on their conjunction', async () => {
    const { bus } = makeBus();
    const bySession = record(bus, { filter: { session_ids: new Set(['s1']) } });
    const byType = record(bus, { filter: { event_types: new Set(['tool.called', 'tool.failed']) } });
    const byActor = record(bus, { filter: { actors: new Set(['tool' as const]) } });
    const both = record(bus, { filter: { session_ids: new Set(['s2']), actors: new Set(['agent' as const]) } });
    const all = record(bus);
    const mix: BusEvent[] = [
      bus.emit(sampleDraft('tool.called', { session_id: 's1', actor: 'agent' })),
      bus.emit(sampleDraft('tool.completed', { session_id: 's2', actor: 'tool' })),
      bus.emit(sampleDraft('tool.failed', { session_id: 's2', actor: 'tool' })),
      bus.emit(sampleDraft('llm.call_started', { session_id: 's2', actor: 'agent' })),
      bus.emit(sampleDraft('session.ended', { session_id: 's1', actor: 'system' })),
    ];
    await bus.drain();
    const ids = (es: BusEvent[]) => es.map((e) => e.id);
    expect(ids(all)).toEqual(ids(mix));
    expect(ids(bySession)).toEqual(ids([mix[0]!, mix[4]!]));
    expect(ids(byType)).toEqual(ids([mix[0]!, mix[2]!]));
    expect(ids(byActor)).toEqual(ids([mix[1]!, mix[2]!]));
    expect(ids(both)).toEqual(ids([mix[3]!]));
  });
});

describe('sensitivity (catalog §9.1 test 8)', () => {
  it.each(TYPES)('%s is stamped with its catalog floor by default', async (type) => {
    const { bus } = makeBus();
    const seen = record(bus);
    bus.emit(sampleDraft(type));
    await bus.drain();
    expect(seen[0]!.sensitivity).toBe(eventCatalog().entry(type)!.sensitivity);
  });

  it('keeps a caller-supplied sensitivity (the §4.4.1 downgrade of eval.completed)', () => {
    const { bus } = makeBus();
    expect(bus.emit({ ...sampleDraft('eval.completed'), sensitivity: 'pseudonymous' }).sensitivity).toBe('pseudonymous');
  });
});

describe('forward compatibility (catalog §9.1 test 9)', () => {
  it('lenient mode passes an unknown type to an all-types subscriber, which skips it', async () => {
    const { bus, logger } = makeBus({ mode: 'lenient' });
    const handled: string[] = [];
    const skipped: string[] = [];
    bus.subscribe({
      name: 'catalog-aware',
      filter: {},
      handler: (e) => {
        if (!isKnownEventType(e.type)) {
          skipped.push(e.type);
          return;
        }
        handled.push(e.type);
      },
    });
    const future = bus.emit({ session_id: 's', type: 'skill.created', actor: 'system', payload: { skill_id: 'x' } });
    bus.emit(sampleDraft('session.ended'));
    await bus.drain();
    expect(skipped).toEqual(['skill.created']);
    expect(handled).toEqual(['session.ended']);
    expect(future.sensitivity).toBe('private');
    expect(logger.records.filter((r) => r.level === 'warn' || r.level === 'error')).toEqual([]);
    expect(logger.records.some((r) => r.level === 'debug' && r.fields?.event_type === 'skill.created')).toBe(true);
  });
});

describe('bounded queue (catalog §9.1 test 10)', () => {
  it('throws EventBusOverflowError at the emitter, logs one ERROR, delivers no bus.overflow', async () => {
    const { bus, logger } = makeBus({ maxQueue: 5 });
    const seen = record(bus);
    const accepted = Array.from({ length: 5 }, () => bus.emit(sampleDraft('session.ended')));
    expect(() => bus.emit(sampleDraft('session.ended'))).toThrow(EventBusOverflowError);
    expect(() => bus.emit(sampleDraft('session.ended'))).toThrow(EventBusOverflowError);
    const errors = logger.records.filter((r) => r.level === 'error');
    expect(errors).toHaveLength(1);
    expect(errors[0]!.fields).toMatchObject({ max_queue: 5, event_type: 'session.ended' });
    await bus.drain();
    expect(seen).toEqual(accepted);
    expect(seen.some((e) => e.type.startsWith('bus.'))).toBe(false);
    // Once drained, emitting works again.
    expect(() => bus.emit(sampleDraft('session.ended'))).not.toThrow();
  });
});

describe('ordering property', () => {
  it('every subscriber sees each session\'s events in emit order, whatever the interleaving', async () => {
    const step = fc.record({ session: fc.integer({ min: 0, max: 3 }), yieldAfter: fc.boolean(), delay: fc.integer({ min: 0, max: 3 }) });
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 60 }), async (steps) => {
        const { bus } = makeBus({ clock: createSystemClock() });
        const delays = new Map<string, number>();
        const fastSeen: BusEvent[] = [];
        const slowSeen: BusEvent[] = [];
        const syncSeen: BusEvent[] = [];
        bus.subscribe({ name: 'fast', filter: {}, fast_path: true, handler: (e) => void fastSeen.push(e) });
        bus.subscribe({ name: 'sync', filter: {}, handler: (e) => void syncSeen.push(e) });
        bus.subscribe({
          name: 'async',
          filter: {},
          handler: async (e) => {
            for (let i = 0; i < (delays.get(e.id) ?? 0); i++) await new Promise((r) => setImmediate(r));
            slowSeen.push(e);
          },
        });
        const emitted: BusEvent[] = [];
        for (const s of steps) {
          const e = bus.emit(sampleDraft('session.ended', { session_id: `s${s.session}` }));
          delays.set(e.id, s.delay);
          emitted.push(e);
          if (s.yieldAfter) await new Promise((r) => setImmediate(r));
        }
        await bus.drain();
        const perSession = (es: BusEvent[]) => {
          const m = new Map<string, string[]>();
          for (const e of es) m.set(e.session_id, [...(m.get(e.session_id) ?? []), e.id]);
          return m;
        };
        const want = perSession(emitted);
        expect(perSession(fastSeen)).toEqual(want);
        expect(perSession(syncSeen)).toEqual(want);
        expect(perSession(slowSeen)).toEqual(want);
        // The fast path also keeps the global order.
        expect(fastSeen.map((e) => e.id)).toEqual(emitted.map((e) => e.id));
      }),
      { numRuns: 60 },
    );
  });
});

describe('events nobody reads cost nothing', () => {
  it('wants(type) is true exactly when an active subscription could receive the type', () => {
    const { bus } = makeBus({ mode: 'lenient' });
    expect(bus.wants!('route.decided')).toBe(false);
    const h = bus.subscribe({ name: 'only-llm', filter: { event_types: new Set(['llm.call_completed']) }, handler: () => {} });
    expect(bus.wants!('route.decided')).toBe(false);
    expect(bus.wants!('llm.call_completed')).toBe(true);
    const all = bus.subscribe({ name: 'all', filter: { session_ids: new Set(['s']) }, handler: () => {} });
    expect(bus.wants!('route.decided')).toBe(true);
    bus.unsubscribe(all);
    bus.unsubscribe(h);
    expect(bus.wants!('llm.call_completed')).toBe(false);
  });

  it('lenient: an event no subscription wants is stamped and returned, neither validated nor queued; strict still validates', async () => {
    const { bus, logger } = makeBus({ mode: 'lenient' });
    const [, payload] = invalidVariants('route.decided')[0]!;
    const a = bus.emit({ ...sampleDraft('route.decided'), payload });
    const b = bus.emit(sampleDraft('route.decided'));
    expect(a.id < b.id).toBe(true);
    await bus.drain();
    expect(logger.records.filter((r) => r.level === 'warn')).toEqual([]);
    // Once someone listens, the same bad payload is caught again.
    const seen = record(bus);
    bus.emit({ ...sampleDraft('route.decided'), payload });
    bus.emit(sampleDraft('route.decided'));
    await bus.drain();
    expect(seen.map((e) => e.type)).toEqual(['route.decided']);
    expect(logger.records.filter((r) => r.level === 'warn')).toHaveLength(1);
    const strict = makeBus().bus;
    expect(() => strict.emit({ ...sampleDraft('route.decided'), payload })).toThrow(EventValidationError);
  });
});
