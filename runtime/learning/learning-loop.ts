import { Decimal } from 'decimal.js';
import type { BusEvent, EventBus, SubscriptionHandle } from '../events/event.ts';
import type { PatternStore, StructuralFeatures } from '../patterns/index.ts';

/** What the loop needs to know about a turn when its session ends. */
interface TurnTally {
  turn_id: string;
  model: string | null;
  cost: Decimal;
  latency_ms: number;
  pricing_version: string | null;
}

/** Options of the learning loop. */
export interface LearningLoopOptions {
  bus: EventBus;
  store: PatternStore;
  /** The structural features the router computed for a turn (at routing time, from session state). */
  featuresOf(turnId: string): StructuralFeatures | undefined;
  /** pattern.min_eval_confidence of the routing config in force. */
  minEvalConfidence(): number;
}

/**
 * The two halves of pattern-store.md §10.4 / §15.3 as bus subscribers: when a session ends, each of
 * its turns is recorded with `success_score = null`; when a turn's verdict arrives later
 * (eval.completed), it is folded in with `updateScore`. Both are batch subscribers: they never slow
 * the agent loop, and the bus keeps each session's events in order for them.
 */
export function startLearningLoop(options: LearningLoopOptions): { stop(): void } {
  const { bus, store } = options;
  const sessions = new Map<string, Map<string, TurnTally>>();
  const recorded = new Set<string>();

  const tally = (e: BusEvent): TurnTally | null => {
    if (!e.turn_id) return null;
    let turns = sessions.get(e.session_id);
    if (!turns) sessions.set(e.session_id, (turns = new Map()));
    let t = turns.get(e.turn_id);
    if (!t) turns.set(e.turn_id, (t = { turn_id: e.turn_id, model: null, cost: new Decimal(0), latency_ms: 0, pricing_version: null }));
    return t;
  };

  const handle = (e: BusEvent): void => {
    const p = e.payload as Record<string, unknown>;
    switch (e.type) {
      case 'route.decided': {
        const t = tally(e);
        if (t) t.model = String(p.chosen_model);
        return;
      }
      case 'llm.call_completed': {
        const t = tally(e);
        if (!t) return;
        t.cost = t.cost.plus(String(p.cost_usd));
        t.latency_ms += Number(p.latency_ms);
        t.pricing_version = String(p.pricing_version);
        return;
      }
      case 'session.ended': {
        // At most once per session (pattern-store.md §11.3): Welford makes a double count wrong.
        if (recorded.has(e.session_id)) return;
        recorded.add(e.session_id);
        for (const t of sessions.get(e.session_id)?.values() ?? []) {
          const features = options.featuresOf(t.turn_id);
          if (!features || !t.model) continue;
          store.record(
            { turn_id: t.turn_id, features, primary_model: t.model, success_score: null, cost_usd: t.cost, latency_ms: t.latency_ms, pricing_version: t.pricing_version ?? 'unknown' },
            { session_id: e.session_id, turn_id: t.turn_id, parent_event_id: e.id },
          );
        }
        sessions.delete(e.session_id);
        return;
      }
      case 'eval.completed': {
        if (p.subject_kind !== 'turn') return;
        store.updateScore(
          {
            turn_id: String(p.subject_id),
            score: Number(p.score),
            confidence: Number(p.confidence),
            eval_id: String(p.eval_id),
            pricing_version: (p.judge_pricing_version as string | null) ?? null,
            min_eval_confidence: options.minEvalConfidence(),
          },
          { session_id: e.session_id, turn_id: String(p.subject_id), parent_event_id: e.id },
        );
        return;
      }
    }
  };

  const handles: SubscriptionHandle[] = [
    bus.subscribe({
      name: 'pattern-learning-loop',
      filter: { event_types: new Set(['route.decided', 'llm.call_completed', 'session.ended', 'eval.completed']) },
      fast_path: false,
      // A throw here is logged at WARN by the bus and the subscription kept (catalog §5.2).
      handler: handle,
    }),
  ];
  return {
    stop() {
      for (const h of handles) bus.unsubscribe(h);
    },
  };
}
