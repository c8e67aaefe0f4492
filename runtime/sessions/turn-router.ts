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

/** The routing engine as the session sees it: exactly one route.decided per turn. */
export interface TurnRouter {
  decide(request: TurnRouteRequest): TurnRouteDecision;
  /** SHA-256 of the routing config in force for a workspace (session.created.routing_policy_version). */
  policyVersion(workspaceRoot: string): string;
}
