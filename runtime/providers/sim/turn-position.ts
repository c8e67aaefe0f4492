import type { Message } from '../../types/content.ts';

/** Where a conversation stands in a sim script. */
export interface TurnPosition {
  /** 0-based index of the current user turn. */
  turn: number;
  /** Assistant messages since that turn's user message: the plan step to play next. */
  step: number;
}

/**
 * A user turn starts at each user message that carries a text block; a user message of
 * tool_results only continues the turn. Returns null when there is no user turn yet.
 */
export function turnPosition(messages: readonly Message[]): TurnPosition | null {
  let turn = -1;
  let step = 0;
  for (const m of messages) {
    if (m.role === 'user' && m.content.some((b) => b.type === 'text')) {
      turn++;
      step = 0;
    } else if (m.role === 'assistant' && turn >= 0) step++;
  }
  return turn < 0 ? null : { turn, step };
}
