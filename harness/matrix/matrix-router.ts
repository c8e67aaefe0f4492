import { join } from 'node:path';
import type { Decimal } from 'decimal.js';
import type { EventBus } from '../../runtime/events/event.ts';
import { createPatternSlot, type PatternSlot } from '../../runtime/learning/index.ts';
import { UnknownModelError, type ModelProfile, type ModelRegistry } from '../../runtime/models/index.ts';
import { freezeFeatures, isPatternStoreV2, type EmbeddingQuery, type PatternStore, type PatternStoreV2, type RecordInput, type StructuralFeatures } from '../../runtime/patterns/index.ts';
import { createRouter, readWorkspaceRouting, type PatternConfig, type RouteIds, type RoutingConfig, type TurnRouteRequest, type TurnRouter, type WorkspaceRoutingFile } from '../../runtime/routing/index.ts';
import type { Message } from '../../runtime/types/content.ts';

/**
 * A matrix task played as one turn of the runtime: its text is the user message, routed by the
 * runtime's own router (the seven-slot policy chain, slot 4 over a pattern store, routing.yaml's
 * pattern knobs), and its recorded outcome on a model is written to the store as the learning loop
 * writes a finished turn (the features the pattern slot computed at routing time, the score, the cost).
 */

/** Where a task's turn runs. `known`: the task's cluster is its workspace, the store's near-key
 * (workload_id, pattern-store.md §5.3); `new`: no workspace identity at all (workload_id null). */
export type WorkspaceMode = 'known' | 'new';

/** A task as the router sees it. */
export interface MatrixTurnTask {
  text: string;
  cluster: string;
}

/** One recorded outcome written to the store. */
export interface MatrixTurnOutcome {
  score: number;
  costUsd: Decimal;
  latencyMs?: number;
}

/** Options of createMatrixRouter. */
export interface MatrixRouterOptions {
  /** The candidate pool (matrix model ids); routing answers an index into it. */
  models: readonly string[];
  /** Slot 7 when slot 4 abstains: the pool's cheapest model, as in A3's Pass C. */
  defaultModel: string;
  /** The routing config in force (schema defaults, then --routing-config); its pattern knobs apply. */
  routing: RoutingConfig;
  store: PatternStore;
  bus: EventBus;
  /** Parent directory of the per-cluster workspace roots (need not exist; a `.metis/routing.yaml` under one applies to that cluster). */
  workspacesDir: string;
  /** Recorded as the outcome's pricing version. */
  pricingVersion: string;
  /** Slot 4's exploration draws (pattern.exploration); default Math.random. */
  random?: () => number;
  /**
   * Where each task's structural features are kept, per mode (default: this router's own). A run passes one
   * for all its routers: the features are a pure function of the task and the mode (the workspaces and the
   * tools are the run's), so every fold's store would compute the same ones again.
   */
  features?: MatrixFeatureCache;
}

/** Structural features per task and mode (createMatrixRouter's `features`). */
export type MatrixFeatureCache = WeakMap<MatrixTurnTask, Partial<Record<WorkspaceMode, StructuralFeatures>>>;

/** The runtime's router over one pattern store, speaking matrix tasks. */
export interface MatrixRouter {
  /** Routes one task with slot 4's cost_weight set to `costWeight`; returns the chosen model's pool index. */
  route(task: MatrixTurnTask, mode: WorkspaceMode, turnId: string, costWeight: number): number;
  /**
   * The task prepared for routing at many cost weights (evidence then score): its features and slot 4's
   * neighbours are computed once, then each `route` only scores them. `prepare(t, m).route(id, w)` answers
   * what `route(t, m, id, w)` answers, as long as nothing is learned in between (prepare again after `learn`).
   */
  prepare?(task: MatrixTurnTask, mode: WorkspaceMode): PreparedMatrixTurn;
  /** Writes the task's recorded outcome on pool model `model` to the store, as a finished turn (a promise only while a v2 store embeds). */
  learn(task: MatrixTurnTask, mode: WorkspaceMode, turnId: string, model: number, outcome: MatrixTurnOutcome): void | Promise<void>;
  /** The structural features slot 4 computes for the task's turn in `mode` (what its stored fingerprint holds). */
  features(task: MatrixTurnTask, mode: WorkspaceMode): StructuralFeatures;
  /** v2: puts the task's text in the store's embedding cache (no outcome), so routing it meets its vector rather than the §16.13 structural fallback; v1: nothing. */
  warm(task: MatrixTurnTask): void | Promise<void>;
  /** Exploration draws (pattern.exploration) made so far: a router that draws cannot route several cost weights from one sequence of draws. */
  draws?(): number;
}

/** A task prepared for a sweep (MatrixRouter.prepare). */
export interface PreparedMatrixTurn {
  route(turnId: string, costWeight: number): number;
}

/** `{ ...input, embedding }` written out: made per seeded outcome, and V8 adds a property after a spread slowly. */
function withEmbedding(input: Omit<RecordInput, 'embedding'>, embedding: Float32Array): RecordInput & EmbeddingQuery {
  return {
    turn_id: input.turn_id,
    features: input.features,
    primary_model: input.primary_model,
    success_score: input.success_score,
    cost_usd: input.cost_usd,
    latency_ms: input.latency_ms,
    pricing_version: input.pricing_version,
    prompt_text: input.prompt_text,
    embedding,
  };
}

/** A registry of exactly the pool: text-only, so every model passes capability validation. */
export function poolRegistry(models: readonly string[]): ModelRegistry {
  const profiles = models.map(
    (id): ModelProfile => ({
      id,
      provider: 'openai-compatible',
      aliases: [],
      capabilities: { tools: false, vision: false, prompt_caching: false, system_prompt: true, context_window: Number.MAX_SAFE_INTEGER },
      min_cacheable_prefix_tokens: 0,
      sim: { competence: 0.5, ttft_ms: 0, input_tokens_per_ms: 1, output_tokens_per_second: 1 },
    }),
  );
  const byId = new Map(profiles.map((p) => [p.id, p]));
  return {
    resolve(id) {
      const p = byId.get(id);
      if (!p) throw new UnknownModelError(id, models);
      return p;
    },
    list: () => profiles,
  };
}

/** Creates the router (one runtime router per cost_weight, all sharing one slot 4 and store). */
export function createMatrixRouter(o: MatrixRouterOptions): MatrixRouter {
  const registry = poolRegistry(o.models);
  let draws = 0;
  const draw = o.random ?? Math.random;
  const random = (): number => {
    draws++;
    return draw();
  };
  // The requests prepare() made, with their task's features (the run's): the slot routes on them, not on a fresh fingerprint.
  const preparedFeatures = new WeakMap<TurnRouteRequest, StructuralFeatures>();
  const slot: PatternSlot = createPatternSlot({ store: o.store, bus: o.bus, toolSideEffects: {}, candidates: () => o.models, random, knownFingerprint: (req) => preparedFeatures.get(req) });
  const v2 = isPatternStoreV2(o.store) ? o.store : null;
  const routers = new Map<number, TurnRouter>();
  const index = new Map(o.models.map((m, i) => [m, i]));
  // Each cluster's workspace routing.yaml read once per router, not once per routed task: nothing edits a
  // matrix run's workspaces while it routes (a session's agent may edit its own, so the runtime reads per turn).
  const workspaceFiles = new Map<string, WorkspaceRoutingFile>();
  const readWorkspace = (root: string): WorkspaceRoutingFile => {
    let read = workspaceFiles.get(root);
    if (!read) workspaceFiles.set(root, (read = readWorkspaceRouting(root)));
    return read;
  };
  const routerFor = (costWeight: number): TurnRouter => {
    let r = routers.get(costWeight);
    if (!r) {
      const global: RoutingConfig = { ...o.routing, default_model: o.defaultModel, pattern: { ...o.routing.pattern, cost_weight: costWeight } };
      routers.set(costWeight, (r = createRouter({ bus: o.bus, registry, global, slot4: slot, readWorkspace })));
    }
    return r;
  };
  /** A turn's ids as request() names them. */
  const idsOf = (turnId: string): RouteIds => ({ session_id: `matrix:${turnId}`, turn_id: turnId, parent_event_id: `matrix:${turnId}` });
  const request = (task: MatrixTurnTask, mode: WorkspaceMode, turnId: string): TurnRouteRequest => {
    const message: Message = { role: 'user', content: [{ type: 'text', text: task.text }] };
    return {
      workspaceRoot: join(o.workspacesDir, encodeURIComponent(task.cluster)),
      userMessage: task.text,
      history: [message],
      // The runtime's usual estimate: about four characters a token.
      estimatedInputTokens: Math.ceil(task.text.length / 4),
      toolsOffered: false,
      hasImages: false,
      stickyModel: null,
      overrideModel: null,
      workloadId: mode === 'known' ? task.cluster : null,
      ...idsOf(turnId),
    };
  };
  // Seeding learns every model's outcome of a task in turn: its features (a pure function of the task and
  // the mode) and its embedding are computed once per task, not once per (task, model).
  const features: MatrixFeatureCache = o.features ?? new WeakMap();
  const featuresOf = (task: MatrixTurnTask, mode: WorkspaceMode, turnId: string): StructuralFeatures => {
    const byMode = features.get(task) ?? {};
    let f = byMode[mode];
    if (!f) {
      // The request is built only on a miss: seeding learns each task's outcomes on every model in turn.
      const req = request(task, mode, turnId);
      slot.recommenderFor(req, o.routing.pattern);
      // Frozen: a value shared by every store that records the task (the stores keep what they derive from it).
      f = freezeFeatures(slot.featuresOf(req.turn_id)!);
      slot.forget(req.turn_id);
      features.set(task, { ...byMode, [mode]: f });
    }
    return f;
  };
  let lastEmbedded: { text: string; vector: Float32Array } | null = null;
  const embeddingOf = async (store: PatternStoreV2, text: string): Promise<Float32Array> => {
    if (lastEmbedded?.text !== text) lastEmbedded = { text, vector: await store.embedForRecording(text) };
    return lastEmbedded.vector;
  };
  const poolIndex = (model: string): number => {
    const i = index.get(model);
    if (i === undefined) throw new Error(`router chose '${model}', which is not in the pool ${o.models.join(', ')}`);
    return i;
  };
  // The sweep's router: its pattern knobs are patched per decision (PreparedRoute), as routerFor(w) builds them in.
  let base: TurnRouter | null = null;
  /** One patch object per cost_weight: a prepared route reads each patch object once. */
  const patches = new Map<number, Partial<PatternConfig>>();
  const patchOf = (costWeight: number): Partial<PatternConfig> => {
    let p = patches.get(costWeight);
    if (!p) patches.set(costWeight, (p = Object.freeze({ cost_weight: costWeight })));
    return p;
  };
  return {
    route(task, mode, turnId, costWeight) {
      const d = routerFor(costWeight).decide(request(task, mode, turnId));
      slot.forget(turnId);
      return poolIndex(d.chosen_model);
    },
    prepare(task, mode) {
      base ??= createRouter({ bus: o.bus, registry, global: { ...o.routing, default_model: o.defaultModel }, slot4: slot, readWorkspace });
      const router = base;
      const req = request(task, mode, `prepare:${mode}`);
      // The task's features as its seeding recorded them (computed here when this run has not met it yet): the same
      // fingerprint the slot would compute for the request, its normal form and signature kept once per run.
      preparedFeatures.set(req, featuresOf(task, mode, `features:${mode}`));
      const prepared = router.prepare?.(req);
      return {
        route(turnId, costWeight) {
          // The ids alone: the rest of the request is the prepared one.
          const d = prepared ? prepared.decide(idsOf(turnId), patchOf(costWeight)) : routerFor(costWeight).decide(request(task, mode, turnId));
          slot.forget(turnId);
          return poolIndex(d.chosen_model);
        },
      };
    },
    learn(task, mode, turnId, model, outcome) {
      // The features the pattern slot computes for this turn at routing time, so the stored
      // fingerprint is the one a later routing query of the same shape meets.
      const features = featuresOf(task, mode, turnId);
      const input = {
        turn_id: turnId,
        features,
        primary_model: o.models[model]!,
        success_score: outcome.score,
        cost_usd: outcome.costUsd,
        latency_ms: outcome.latencyMs ?? 0,
        pricing_version: o.pricingVersion,
        // The task's text: the store keeps its hashed words beside the outcome (scoring: learned trains on them).
        prompt_text: task.text,
      };
      // As request() names the turn's session.
      const ctx = { session_id: `matrix:${turnId}`, turn_id: turnId, parent_event_id: null };
      if (!v2) return void o.store.record(input, ctx);
      // The task's other models follow its first at once (seeding): the vector in hand, recorded without a promise.
      if (lastEmbedded?.text === task.text) return void v2.record(withEmbedding(input, lastEmbedded.vector), ctx);
      return embeddingOf(v2, task.text).then((embedding) => void v2.record(withEmbedding(input, embedding), ctx));
    },
    features: (task, mode) => featuresOf(task, mode, `features:${mode}`),
    warm(task) {
      if (v2) return v2.embedForRecording(task.text).then(() => undefined);
    },
    draws: () => draws,
  };
}
