import type { PatternAlternative } from './route-decision.ts';

/** A delegate tier a planner asks for when it spawns a worker (slot 5). */
export type DelegateTier = 'fast' | 'balanced' | 'deep';

/** Model per delegate tier, from routing.yaml `tiers`. */
export type TierModels = Record<DelegateTier, string>;

/** What slot 4 gets back from the pattern store (pattern-store.md §8). */
export interface PatternRecommendation {
  model: string;
  /** (top score − runner-up) / top score, in [0, 1]. */
  confidence: number;
  /** The full ranked list from the K-cluster, best first. */
  alternatives: PatternAlternative[];
}

/**
 * Slot 4's view of the pattern store: null means no recommendation (empty store, too little signal).
 * Implementations catch their own storage errors (pattern-store.md §9.3).
 */
export interface PatternRecommender {
  recommend(ctx: RouteContext): PatternRecommendation | null;
}

/** Everything the policy chain may look at for one turn; built by the session, read-only to policies. */
export interface RouteContext {
  /** Slot 1: a model named on this message only. */
  override_model: string | null;
  /** Why slot 1's model was named, when not by the user (a benchmark's random arm records its draw here). */
  override_reason?: string | null;
  /** Slot 2: a model the user pinned for the session (A3 Pass A/B force models this way). */
  sticky_model: string | null;
  /** Slot 6: `default_model` of the workspace's .metis/routing.yaml, if it sets one. */
  workspace_default_model: string | null;
  /** Slot 7: `default_model` of the global config (the harness's --model). */
  global_default_model: string | null;
  /** The new user message, matched by rules' message_regex. */
  user_message: string;
  intent_tags: readonly string[];
  /** Extensions of the files in play, e.g. `.py`; compared case-insensitively, dot optional. */
  file_extensions: readonly string[];
  estimated_input_tokens: number;
  /** The turn offers tools to the model, so the model must support tool use. */
  tools_offered: boolean;
  has_images: boolean;
  /** Slot 5: set in worker sessions to the tier the planner asked for. */
  delegate_tier: DelegateTier | null;
  tiers: TierModels;
  /** Slot 4; absent until a pattern store is wired in, and then `pattern` is not applicable. */
  recommender?: PatternRecommender | null;
}
