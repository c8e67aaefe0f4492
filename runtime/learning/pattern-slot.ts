import { createHash } from 'node:crypto';
import { createLatestFirstMap } from '../core/latest-first-map.ts';
import { textMemo } from '../core/text-memo.ts';
import type { EventBus } from '../events/event.ts';
import { computeStructuralFeatures, freezeFeatures, createLearnedScorer, createPatternRecommender, createRegretBudget, type RegretBudget, evidenceKey, isPatternStoreV2, patternMatchedPayload, scoreEvidence, type PatternRecommendation, type PatternStore, type RecommendEvidence, type RecommendOptions, type StructuralFeatures } from '../patterns/index.ts';
import type { PatternConfig, RouteDecidedPayload, Slot4Provider, TurnRouteRequest } from '../routing/index.ts';
import type { SideEffect } from '../tools/tool.ts';

/** Slot 4 backed by the pattern store, plus what the learning loop needs to record each turn. */
export interface PatternSlot extends Slot4Provider {
  /** The structural features computed for a turn at routing time. */
  featuresOf(turnId: string): StructuralFeatures | undefined;
  /** The user message a turn was routed on: what a v2 store embeds when the turn is recorded (§16.13). */
  textOf(turnId: string): string | undefined;
  /** Drops what was kept for a turn once it is recorded, so a long-lived runtime does not grow. */
  forget(turnId: string): void;
  /** pattern.min_eval_confidence of the config last seen. */
  minEvalConfidence(): number;
}

/**
 * Learned routing glue (pattern-store.md §8.1, §9): computes each turn's fingerprint from session
 * state, asks the store for a recommendation with the effective pattern knobs, records the K-NN's
 * per-model scores in the pattern slot of route.decided even when the gate holds it back, and emits
 * pattern.matched when slot 4 wins.
 */
export function createPatternSlot(options: {
  store: PatternStore;
  bus: EventBus;
  toolSideEffects: Readonly<Record<string, SideEffect>>;
  /** pattern.exploration's draws (default Math.random; the harness passes a seeded PRNG so a run replays). */
  random?: () => number;
  /** The models routing may choose (the registry's), which exploration may try before the store has seen them. */
  candidates?: () => readonly string[];
  /**
   * A turn's fingerprint computed already, or undefined (then the slot computes it): it must be what the slot
   * would compute for the request, frozen. A matrix run routes each task in several folds' stores and keeps
   * each task's fingerprint for the run, so its normal form and signature are worked out once per task.
   */
  knownFingerprint?: (req: TurnRouteRequest) => StructuralFeatures | undefined;
}): PatternSlot {
  const { store, bus } = options;
  // Per-turn state, set when a turn is routed and dropped once it is decided and recorded: each map holds its
  // latest turn outside a Map (a sweep decides one turn after another, and a Map emptied by a delete reallocates).
  const features = createLatestFirstMap<string, StructuralFeatures>();
  const texts = createLatestFirstMap<string, string>();
  /** Turns routed with a cached embedding (v2 blended K-NN) rather than on structure alone. */
  const hybridTurns = createLatestFirstMap<string, true>();
  const v2 = isPatternStoreV2(store) ? store : null;
  const recommendations = createLatestFirstMap<string, PatternRecommendation | null>();
  let minEvalConfidence = 0.5;
  // scoring: learned reads the prompt through the store's prompt rows (trained lazily, on first use).
  const learned = createLearnedScorer(store);
  /** Slot 4's answer from a recommendation (null when gated). */
  const answer = (rec: PatternRecommendation) =>
    rec.chosen_model === null ? null : { model: rec.chosen_model, confidence: rec.confidence, alternatives: rec.alternatives.map(({ model, score, sample_size }) => ({ model, score, sample_size })) };
  // One regret budget per cost_weight: each operating point is its own deployment (a sweep must not spend
  // one point's exploration on another's).
  const budgets = new Map<number, RegretBudget>();
  const budgetFor = (pattern: PatternConfig): RegretBudget => {
    let b = budgets.get(pattern.cost_weight);
    if (!b) budgets.set(pattern.cost_weight, (b = createRegretBudget(pattern.exploration_regret_budget)));
    return b;
  };

  /** The turn's structural fingerprint (§5), computed from session state; frozen, so the store keeps what it derives from it. */
  const fingerprintOf = (req: TurnRouteRequest): StructuralFeatures => options.knownFingerprint?.(req) ?? computedFingerprint(req);
  const computedFingerprint = (req: TurnRouteRequest): StructuralFeatures =>
    freezeFeatures(computeStructuralFeatures({
      userMessage: req.userMessage,
      // The router sees the history with this turn's user message already appended.
      history: req.history.slice(0, -1),
      toolSideEffects: options.toolSideEffects,
      estimatedInputTokens: req.estimatedInputTokens,
      hasImages: req.hasImages,
      // A benchmark run copies the workload's fixture to a fresh temp dir each rep; the logical
      // workspace is the workload, so structurally equal turns of different reps share a fingerprint.
      workspaceHash: sha256(req.workloadId ? `workload:${req.workloadId}` : req.workspaceRoot),
      workloadId: req.workloadId,
    }));
  /** The store's options under the pattern knobs in force. */
  const optionsOf = (pattern: PatternConfig): RecommendOptions => {
    const o: RecommendOptions = {
      cost_weight: pattern.cost_weight,
      min_confidence: pattern.min_confidence,
      min_sample_size: pattern.min_sample_size,
      k: 10,
      scoring: pattern.scoring,
      min_similarity: pattern.min_similarity,
      exploration: pattern.exploration,
      random: options.random ?? Math.random,
    };
    // Assigned, not spread in: made per decision, and Node 20's V8 adds properties after a spread slowly.
    if (pattern.exploration === 'thompson') o.regret_budget = budgetFor(pattern);
    if (options.candidates) o.candidates = options.candidates();
    return o;
  };

  const slot: PatternSlot = {
    featuresOf: (turnId) => features.get(turnId),
    textOf: (turnId) => texts.get(turnId),
    forget(turnId) {
      features.delete(turnId);
      texts.delete(turnId);
    },
    minEvalConfidence: () => minEvalConfidence,

    recommenderFor(req: TurnRouteRequest, pattern: PatternConfig) {
      minEvalConfidence = pattern.min_eval_confidence;
      const f = fingerprintOf(req);
      features.set(req.turn_id, f);
      texts.set(req.turn_id, req.userMessage);
      if (pattern.scoring === 'learned')
        return {
          recommend() {
            const rec = learned.score(learned.predict(req.userMessage, req.workloadId), optionsOf(pattern));
            recommendations.set(req.turn_id, rec);
            return answer(rec);
          },
        };
      const recommender = createPatternRecommender(store, {
        featuresOf: () => f,
        options: () => optionsOf(pattern),
        // The routing path reads the embedding cache only; a miss routes this turn on v1 structural (§16.13).
        ...(v2
          ? {
              embeddingOf: () => {
                const e = v2.cachedEmbedding(req.userMessage);
                if (e) hybridTurns.set(req.turn_id, true);
                return e;
              },
            }
          : {}),
      });
      return {
        recommend(ctx) {
          const r = recommender.recommend(ctx);
          recommendations.set(req.turn_id, recommender.lastRecommendation());
          return r;
        },
      };
    },

    // Evidence once per turn, scored per decision: the fingerprint on the first decision, the neighbours on
    // the first recommendation that needs them (per evidenceKey), the embedding-cache read once.
    prepareTurn(turn: TurnRouteRequest) {
      if (!store.evidence && !v2) return { recommenderFor: (req, pattern) => slot.recommenderFor(req, pattern) };
      let f: StructuralFeatures | null = null;
      let embedding: Float32Array | null | undefined;
      const gathered = new Map<string, RecommendEvidence>();
      let predicted: ReturnType<typeof learned.predict> | null = null;
      const evidenceFor = (opts: RecommendOptions): { ev: RecommendEvidence; hybrid: boolean } => {
        if (embedding === undefined) embedding = v2 ? v2.cachedEmbedding(turn.userMessage) : null;
        const key = evidenceKey(opts);
        let ev = gathered.get(key);
        if (!ev) gathered.set(key, (ev = v2 ? v2.evidence(f!, opts, { embedding }) : store.evidence!(f!, opts)));
        return { ev, hybrid: embedding !== null };
      };
      return {
        recommenderFor(req, pattern) {
          minEvalConfidence = pattern.min_eval_confidence;
          f ??= fingerprintOf(turn);
          features.set(req.turn_id, f);
          texts.set(req.turn_id, turn.userMessage);
          return {
            recommend() {
              const opts = optionsOf(pattern);
              if (opts.scoring === 'learned') {
                // The prompt's predictions once per turn; each cost_weight only rescores them.
                predicted ??= learned.predict(turn.userMessage, turn.workloadId);
                const rec = learned.score(predicted, opts);
                recommendations.set(req.turn_id, rec);
                return answer(rec);
              }
              const { ev, hybrid } = evidenceFor(opts);
              if (hybrid) hybridTurns.set(req.turn_id, true);
              const rec = scoreEvidence(ev, opts);
              recommendations.set(req.turn_id, rec);
              return answer(rec);
            },
          };
        },
      };
    },

    annotate(req, decision) {
      const rec = recommendations.get(req.turn_id);
      const entry = decision.chain.find((e) => e.policy === 'pattern');
      if (!rec || !entry || entry.pattern_alternatives || rec.alternatives.length === 0) return;
      // Gated by min_confidence / min_sample_size: keep the evidence the report needs.
      entry.pattern_alternatives = rec.alternatives.map((a) => ({ model: a.model, score: a.score, sample_size: a.sample_size }));
      entry.confidence = rec.confidence;
    },

    onDecided(req, decision: RouteDecidedPayload, routeEventId) {
      const rec = recommendations.get(req.turn_id);
      recommendations.delete(req.turn_id);
      const hybrid = hybridTurns.delete(req.turn_id);
      if (decision.chain[decision.winner_index]?.policy !== 'pattern' || !rec || bus.wants?.('pattern.matched') === false) return;
      // fingerprint_id is null when this exact shape has not been stored yet (it is recorded at session end).
      const payload = patternMatchedPayload(rec, hybrid ? 'hybrid' : 'structural');
      if (payload) bus.emit({ session_id: req.session_id, turn_id: req.turn_id, parent_event_id: routeEventId, type: 'pattern.matched', actor: 'system', payload });
    },
  };
  return slot;
}

// A slot meets few workspaces and hashes one per fingerprint: the digest is kept per text.
const sha256 = textMemo((text: string): string => createHash('sha256').update(text).digest('hex'), 1024);
