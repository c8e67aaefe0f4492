import { Decimal } from 'decimal.js';
import type { BusEvent, EventBus, SubscriptionHandle } from '../events/event.ts';
import { isPatternStoreV2, type PatternStore, type StructuralFeatures } from '../patterns/index.ts';
import type { Logger } from '../core/logger.ts';

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
  /** The user message of a turn; a v2 store embeds it when the turn is recorded. */
  textOf?(turnId: string): string | undefined;
  /** Where a failed embedding is reported (the turn is then recorded structural-only). */
  logger?: Logger;
  /** Called once a turn is recorded: its features and text are no longer needed. */
  forget?(turnId: string): void;
}

/**
 * The two halves of pattern-store.md §10.4 / §15.3 as bus subscribers: when a session ends, each of
 * its turns is recorded with `success_score = null`; when a turn's verdict arrives later
 * (eval.completed), it is folded in with `updateScore`. Both are batch subscribers: they never slow
 * the agent loop, and the bus keeps each session's events in order for them.
 */
export function startLearningLoop(options: LearningLoopOptions): { stop(): void } {
  const { bus, store } = options;
  const v2 = isPatternStoreV2(store) ? store : null;

  /** Recording path (§16.13): the cached vector or a fresh embedding; a provider failure records the turn without one. */
  const embeddingFor = async (turnId: string): Promise<Float32Array | null> => {
    const text = options.textOf?.(turnId);
    if (!v2 || !text) return null;
    try {
      return await v2.embedForRecording(text);
    } catch (e) {
      options.logger?.log('warn', 'pattern store v2: embedding failed; turn recorded structural-only', { turn_id: turnId, error: String((e as Error)?.message ?? e) });
      return null;
    }
  };
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

  // Async only under v2 (embedding on the recording path); the bus awaits it per session, so the
  // verdicts of a session's turns still reach updateScore after the turns are recorded.
  const handle = async (e: BusEvent): Promise<void> => {
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
          const text = options.textOf?.(t.turn_id);
          const input = { turn_id: t.turn_id, features, primary_model: t.model, success_score: null, cost_usd: t.cost, latency_ms: t.latency_ms, pricing_version: t.pricing_version ?? 'unknown', ...(text !== undefined ? { prompt_text: text } : {}) };
          const ctx = { session_id: e.session_id, turn_id: t.turn_id, parent_event_id: e.id };
          if (v2) v2.record({ ...input, embedding: await embeddingFor(t.turn_id) }, ctx);
          else store.record(input, ctx);
          options.forget?.(t.turn_id);
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
