// Keeps a session's history inside the model's window by dropping the oldest tool results first.
import { estimateChars, type EstimatedRequest } from './estimate-tokens.ts';

/** What an elided tool result says instead of its content. */
export function elidedMarker(bytes: number): string {
  return `[tool result elided: ${bytes} characters dropped so the conversation fits the model's context window; call the tool again if you still need it]`;
}

const ELIDED_PREFIX = '[tool result elided:';

/**
 * Tokens a request may hold for a model with `window` tokens: 90% of the window (room for the
 * next user message and the estimate's error, ≈4 chars per token) less the answer's own budget,
 * which never takes more than a quarter of the window.
 */
export function contextBudget(window: number, maxTokens: number): number {
  return Math.floor(window * 0.9) - Math.min(Math.max(maxTokens, 0), Math.floor(window / 4));
}

/**
 * Replaces the oldest tool results of `request.messages` (in place) with a short marker until the
 * request's estimate is at most `budgetTokens`, and returns how many it replaced. Only tool results
 * go: the user's prompts and the model's own words stay. When every tool result is already short and
 * the request is still over, it is left as is (the router or the provider then reports
 * `context_overflow`).
 */
export function fitToolResults(request: EstimatedRequest, budgetTokens: number): number {
  // Counted once, then kept exact as results shrink: the estimate is ceil(chars / 4).
  let chars = estimateChars(request);
  const fits = (): boolean => Math.ceil(chars / 4) <= budgetTokens;
  let elided = 0;
  for (const message of request.messages) {
    if (fits()) break;
    for (const [i, block] of message.content.entries()) {
      if (fits()) break;
      if (block.type !== 'tool_result' || block.content.startsWith(ELIDED_PREFIX)) continue;
      const marker = elidedMarker(block.content.length);
      if (marker.length >= block.content.length) continue;
      message.content[i] = { ...block, content: marker };
      chars -= block.content.length - marker.length;
      elided += 1;
    }
  }
  return elided;
}
