import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AdvancedRouter } from '../cache/advanced-router.ts';
import { newId } from '../core/ids.ts';
import type { EventBus } from '../events/event.ts';
import type { ModelRegistry } from '../models/model-profile.ts';
import { createCapabilityValidator } from './capability-validator.ts';
import { decideRoute } from './decide-route.ts';
import { extractTurnFeatures, type TurnFeatures } from './turn-features.ts';
import { applyWorkspaceRouting, readWorkspaceRouting, WORKSPACE_ROUTING_PATH, type RoutingLoadResult, type WorkspaceRoutingFile } from './load-routing-config.ts';
import { loadPriceTable, type PriceTable } from '../pricing/index.ts';
import { createPolicyChain } from './policies/index.ts';
import { createRoutingModeAdvisor } from './policies/routing-mode.ts';
import type { DelegateTier, PatternRecommender, RouteContext } from './route-context.ts';
import type { PatternConfig, RoutingConfig } from './routing-config.ts';
import type { RouteDecidedPayload } from './route-decision.ts';
import type { Message } from '../types/content.ts';

/** What the session knows about a turn when it asks for a model. */
export interface TurnRouteRequest {
  workspaceRoot: string;
  userMessage: string;
  history: readonly Message[];
  estimatedInputTokens: number;
  toolsOffered: boolean;
  hasImages: boolean;
  stickyModel: string | null;
  overrideModel: string | null;
  /** Why `overrideModel` was named, recorded as slot 1's reason (e.g. a random router's draw); default "model named on this message". */
  overrideReason?: string | null;
  /** The benchmark workload this session runs, if any (the pattern store's near-key, pattern-store.md §5.3). */
  workloadId: string | null;
  /** Set in delegated worker sessions: the tier the planner asked for (routing slot 5). */
  delegateTier?: DelegateTier | null;
  session_id: string;
  turn_id: string;
  /** turn.started id, parent of route.decided. */
  parent_event_id: string;
}

/** The decision: the model to call; route.decided has already been emitted. */
export interface TurnRouteDecision {
  chosen_model: string;
  event_id: string;
}

/** The ids that tell one decision of a prepared turn from another (a sweep's points each have their own turn). */
export type RouteIds = Pick<TurnRouteRequest, 'session_id' | 'turn_id' | 'parent_event_id'>;

/**
 * A turn prepared once and decided many times (a sweep over slot 4's knobs): the turn's features, and
 * slot 4's evidence when the provider splits evidence from scoring, are computed on the first decision and
 * reused by every later one. Each `decide` is exactly what `decide` on a router whose global config has
 * `pattern` merged into its pattern knobs would answer for the request under `ids`, and emits its own
 * route.decided. Only valid while nothing is written to slot 4's store: prepare again after a write.
 */
export interface PreparedRoute {
  /** `pattern` is read once per object (a sweep passes one object per point): pass a new object for other knobs, never a changed one. */
  decide(ids: RouteIds, pattern?: Partial<PatternConfig>): TurnRouteDecision;
}

/** The routing engine as the session sees it: exactly one route.decided per turn. */
export interface TurnRouter {
  decide(request: TurnRouteRequest): TurnRouteDecision;
  /** Prepares `request` for several decisions that differ only in their ids and pattern knobs (PreparedRoute); optional for wrappers. */
  prepare?(request: TurnRouteRequest): PreparedRoute;
  /** SHA-256 of the routing config in force for a workspace (session.created.routing_policy_version). */
  policyVersion(workspaceRoot: string): string;
  /** The canonical model a delegate tier maps to in a workspace (routing.yaml `tiers`), or null when it has none. */
  tierModel(tier: DelegateTier, workspaceRoot: string): string | null;
}

/** Slot 4's source: the learned-routing glue gives the chain a recommender for each turn. */
export interface Slot4Provider {
  /** Called once per turn before the chain runs. */
  recommenderFor(req: TurnRouteRequest, pattern: PatternConfig): PatternRecommender;
  /**
   * The evidence-then-score split (optional): gathers what recommending for `req` needs once (its fingerprint,
   * its neighbours), and answers a recommender per decision of it, scoring that evidence under each decision's
   * pattern knobs. `recommenderFor(r, p)` of the returned object must answer as the provider's own would for `r`
   * (which differs from `req` in its ids only). Without it, PreparedRoute asks `recommenderFor` per decision.
   */
  prepareTurn?(req: TurnRouteRequest): { recommenderFor(req: TurnRouteRequest, pattern: PatternConfig): PatternRecommender };
  /** May add detail to the pattern slot's chain entry (e.g. the K-NN scores of a gated cluster) before it is emitted. */
  annotate?(req: TurnRouteRequest, decision: RouteDecidedPayload): void;
  /** Called after route.decided is on the bus (pattern.matched goes here). */
  onDecided?(req: TurnRouteRequest, decision: RouteDecidedPayload, routeEventId: string): void;
}

/** Options for the session-facing router. */
export interface RouterOptions {
  bus: EventBus;
  registry: ModelRegistry;
  /** The harness's global config (its default_model is slot 7). */
  global: RoutingConfig;
  /** Slot 4; without it the pattern slot answers not_applicable. */
  slot4?: Slot4Provider | null;
  /** Prices for routing modes' estimates (routing.yaml `routing_mode`); default the shipped table, read only when a mode is on. */
  prices?: PriceTable | null;
  /**
   * Reads a workspace's routing.yaml (default readWorkspaceRouting, on every turn: the agent may edit it). A
   * caller whose workspaces' files cannot change while it routes (a matrix run) may answer from what it read once.
   */
  readWorkspace?: (workspaceRoot: string) => WorkspaceRoutingFile;
}

/**
 * The routing engine as sessions use it: re-reads the workspace's routing.yaml each turn (the agent
 * may edit it), keeps the last good config when it turns invalid (emitting routing.policy_invalid
 * once per distinct problem), runs the seven-slot chain and emits exactly one route.decided.
 */
export function createRouter(options: RouterOptions): TurnRouter {
  const { bus, registry, global } = options;
  const readWorkspace = options.readWorkspace ?? readWorkspaceRouting;
  const validate = createCapabilityValidator(registry);
  const lastGood = new Map<string, RoutingLoadResult>();
  const reported = new Set<string>();
  const chains = new WeakMap<RoutingConfig, ReturnType<typeof createPolicyChain>>();
  let advanced: AdvancedRouter | null = null;
  const advisorFor = (config: RoutingConfig) => {
    if (config.routing_mode === 'off') return null;
    advanced ??= new AdvancedRouter(registry, options.prices ?? loadPriceTable());
    return createRoutingModeAdvisor(config.routing_mode, config.routing_preferences, advanced);
  };
  const chainFor = (config: RoutingConfig) => {
    let chain = chains.get(config);
    if (!chain) chains.set(config, (chain = createPolicyChain(config, advisorFor(config))));
    return chain;
  };
  const patched = new Map<string, RoutingConfig>();
  const lastGoodPatched = new Map<string, RoutingLoadResult>();
  /** The pattern knobs of each patched global config as text (lastGoodPatched's key part), written once per patch. */
  const patchedKnobs = new WeakMap<RoutingConfig, string>();
  /** What a workspace without a routing.yaml gets under each patched global config (the same for every such workspace). */
  const patchedGlobalOnly = new WeakMap<RoutingConfig, RoutingLoadResult>();
  // Aliases resolve to canonical ids so prices and the trace always name one model (one options object for
  // every decision: a closure made per decision costs a defineProperty for its name in the keepNames build).
  const decideOptions = { canonicalize: (m: string) => registry.resolve(m).id };
  /** Each patch's key (configs per prepared turn), written once per patch object. */
  const patchKeys = new WeakMap<Partial<PatternConfig>, string>();
  const report = (workspaceRoot: string, result: RoutingLoadResult, session_id: string | null): void => {
    if (!result.invalid) return;
    const key = `${workspaceRoot}\u0000${result.invalid.errors.join('\n')}`;
    if (session_id && !reported.has(key)) {
      reported.add(key);
      bus.emit({ session_id, type: 'routing.policy_invalid', actor: 'system', payload: { ...result.invalid } });
    }
  };
  const load = (workspaceRoot: string, session_id: string | null, read: WorkspaceRoutingFile = readWorkspace(workspaceRoot)): RoutingLoadResult => {
    const result = applyWorkspaceRouting(global, read, lastGood.get(workspaceRoot));
    if (result.invalid) report(workspaceRoot, result, session_id);
    else lastGood.set(workspaceRoot, result);
    return result;
  };
  return {
    policyVersion(workspaceRoot) {
      const file = join(workspaceRoot, WORKSPACE_ROUTING_PATH);
      return sha256Hex(`${JSON.stringify(global)}\u0000${existsSync(file) ? readFileSync(file, 'utf8') : ''}`);
    },
    tierModel(tier, workspaceRoot) {
      const model = load(workspaceRoot, null).config.tiers[tier];
      try {
        return model ? registry.resolve(model).id : null;
      } catch {
        return null;
      }
    },
    decide(req) {
      const features = extractTurnFeatures(req.userMessage, req.history);
      return decideWith(req, load(req.workspaceRoot, req.session_id), features, (r, p) => options.slot4?.recommenderFor(r, p) ?? null);
    },
    prepare(req) {
      let features: TurnFeatures | null = null;
      let turn: ReturnType<NonNullable<Slot4Provider['prepareTurn']>> | null | undefined;
      const configs = new Map<string, RoutingLoadResult>();
      // One turn reads its workspace's routing.yaml once, whatever knobs its decisions patch over the global config.
      let workspaceFile: WorkspaceRoutingFile | null = null;
      // One recommender source per prepared turn, not a closure per decision (a sweep decides a turn at every point).
      const recommenderOf = (x: TurnRouteRequest, p: PatternConfig): PatternRecommender | null => (turn ? turn.recommenderFor(x, p) : (options.slot4?.recommenderFor(x, p) ?? null));
      return {
        decide(ids, pattern) {
          const r = withIds(req, ids);
          features ??= extractTurnFeatures(req.userMessage, req.history);
          turn ??= options.slot4?.prepareTurn?.(req) ?? null;
          // The knobs patch the global config, under the workspace's file, as a router built with them would.
          let key = pattern ? patchKeys.get(pattern) : '';
          if (key === undefined) patchKeys.set(pattern!, (key = JSON.stringify(pattern)));
          let routing = configs.get(key);
          if (!routing) {
            workspaceFile ??= readWorkspace(req.workspaceRoot);
            routing = pattern ? loadPatched(patchedGlobal(key, pattern), req.workspaceRoot, r.session_id, workspaceFile) : load(req.workspaceRoot, r.session_id, workspaceFile);
            configs.set(key, routing);
          }
          return decideWith(r, routing, features, recommenderOf);
        },
      };
    },
  };

  /** The global config with pattern knobs patched in, one object per patch (the chain cache is keyed by config). */
  function patchedGlobal(key: string, pattern: Partial<PatternConfig>): RoutingConfig {
    let g = patched.get(key);
    if (!g) patched.set(key, (g = { ...global, pattern: { ...global.pattern, ...pattern } }));
    return g;
  }

  /** The pattern knobs of a patched global config as text (lastGoodPatched's key part), written once per patch. */
  function knobsOf(g: RoutingConfig): string {
    let knobs = patchedKnobs.get(g);
    if (knobs === undefined) patchedKnobs.set(g, (knobs = JSON.stringify(g.pattern)));
    return knobs;
  }

  /** `load` over a patched global config (one object per patch); its last good config is its own. */
  function loadPatched(g: RoutingConfig, workspaceRoot: string, session_id: string, read: WorkspaceRoutingFile): RoutingLoadResult {
    if (read.kind === 'none') {
      // No file: the patched global alone, one answer per patch. Forgetting the workspace's last good config
      // answers as keeping this one would: an invalid file later falls back to the global config either way.
      if (lastGoodPatched.size > 0) lastGoodPatched.delete(`${workspaceRoot}\u0000${knobsOf(g)}`);
      let only = patchedGlobalOnly.get(g);
      if (!only) patchedGlobalOnly.set(g, (only = applyWorkspaceRouting(g, read)));
      return only;
    }
    const lastKey = `${workspaceRoot}\u0000${knobsOf(g)}`;
    const result = applyWorkspaceRouting(g, read, lastGoodPatched.get(lastKey));
    if (result.invalid) report(workspaceRoot, result, session_id);
    else lastGoodPatched.set(lastKey, result);
    return result;
  }

  /** The chain over one turn's loaded config and features: emits exactly one route.decided. */
  function decideWith(req: TurnRouteRequest, routing: RoutingLoadResult, features: TurnFeatures, recommenderFor: (req: TurnRouteRequest, pattern: PatternConfig) => PatternRecommender | null): TurnRouteDecision {
    const ctx: RouteContext = {
      override_model: req.overrideModel,
      override_reason: req.overrideReason ?? null,
      sticky_model: req.stickyModel,
      workspace_default_model: routing.workspace_default_model,
      global_default_model: routing.global_default_model,
      user_message: req.userMessage,
      intent_tags: features.intent_tags,
      file_extensions: features.file_extensions,
      estimated_input_tokens: req.estimatedInputTokens,
      tools_offered: req.toolsOffered,
      has_images: req.hasImages,
      delegate_tier: req.delegateTier ?? null,
      tiers: routing.config.tiers,
      recommender: recommenderFor(req, routing.config.pattern),
    };
    const payload = decideRoute(ctx, chainFor(routing.config), validate, decideOptions);
    // With no subscriber for route.decided, its payload's extras are not built and nothing is emitted; the
    // decision still gets an id (a parent for what follows) and slot 4 still closes the turn.
    if (bus.wants?.('route.decided') === false) {
      const id = newId();
      options.slot4?.onDecided?.(req, payload, id);
      return { chosen_model: payload.chosen_model, event_id: id };
    }
    options.slot4?.annotate?.(req, payload);
    const ev = bus.emit({ session_id: req.session_id, turn_id: req.turn_id, parent_event_id: req.parent_event_id, type: 'route.decided', actor: 'system', payload });
    options.slot4?.onDecided?.(req, payload, ev.id);
    return { chosen_model: payload.chosen_model, event_id: ev.id };
  }
}

/**
 * `{ ...req, ...ids }` written out: made per decision of a prepared turn, and V8 adds the properties that
 * follow a spread one by one on a slow path. The optional fields are carried as they are (absent reads as undefined).
 */
function withIds(req: TurnRouteRequest, ids: RouteIds): TurnRouteRequest {
  return {
    workspaceRoot: req.workspaceRoot,
    userMessage: req.userMessage,
    history: req.history,
    estimatedInputTokens: req.estimatedInputTokens,
    toolsOffered: req.toolsOffered,
    hasImages: req.hasImages,
    stickyModel: req.stickyModel,
    overrideModel: req.overrideModel,
    overrideReason: req.overrideReason,
    workloadId: req.workloadId,
    delegateTier: req.delegateTier,
    session_id: ids.session_id,
    turn_id: ids.turn_id,
    parent_event_id: ids.parent_event_id,
  };
}

function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
