import type { Decimal } from 'decimal.js';
import type { StopReason, Usage } from '../types/response.ts';

/** What one user turn did; the harness builds assertions and signals from it. */
export interface TurnResult {
  turn_id: string;
  session_id: string;
  model: string;
  /** Stop reason of the last LLM call; null when the turn raised before any call completed. */
  stop_reason: StopReason | null;
  llm_calls: number;
  tool_calls: number;
  failed_tool_calls: number;
  /** Provider failures after retries (catalog llm.call_failed); count toward max_hard_failures. */
  hard_failures: number;
  final_text: string;
  usage: Usage;
  cost_usd: Decimal;
  /** Set when the turn could not finish (provider failure, iteration guard). */
  error: string | null;
  /**
   * The provider's error class when a call failed for good (llm.call_failed `error_class`, e.g.
   * `auth`, `malformed_response`, `response_too_large`); null otherwise (the iteration guard sets
   * `error` only: the model ran, so the rep is still checked).
   */
  error_class: string | null;
  /** Id of turn.completed (or of the last event when the turn failed). */
  completed_event_id: string;
}
