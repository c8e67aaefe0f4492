import type { StopReason } from '../types/response.ts';

/** Per-turn assertions of a workload (benchmark.md §3.1 `turns[].expect`). */
export interface TurnExpect {
  min_tool_calls?: number;
  max_tool_calls?: number;
  contains_substring?: string;
  stop_reason?: StopReason;
}

/** What a turn did, as far as its assertions care. */
export interface TurnFacts {
  tool_calls: number;
  final_text: string;
  stop_reason: StopReason | null;
  error: string | null;
}

/** One assertion's outcome. */
export interface AssertionOutcome {
  name: string;
  passed: boolean;
  detail: string;
}

/** `1 tool call`, `3 tool calls`: assertion details read as sentences. */
export function calls(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

/** Checks every assertion present in `expect`; `stop_reason` defaults to end_turn. */
export function checkTurnExpectations(expect: TurnExpect | undefined, facts: TurnFacts): AssertionOutcome[] {
  const e = expect ?? {};
  const out: AssertionOutcome[] = [];
  if (e.min_tool_calls !== undefined)
    out.push({ name: 'min_tool_calls', passed: facts.tool_calls >= e.min_tool_calls, detail: `made ${calls(facts.tool_calls, 'tool call')}; at least ${e.min_tool_calls} expected` });
  if (e.max_tool_calls !== undefined)
    out.push({ name: 'max_tool_calls', passed: facts.tool_calls <= e.max_tool_calls, detail: `made ${calls(facts.tool_calls, 'tool call')}; at most ${e.max_tool_calls} expected` });
  if (e.contains_substring !== undefined) {
    const passed = facts.final_text.toLowerCase().includes(e.contains_substring.toLowerCase());
    out.push({ name: 'contains_substring', passed, detail: `final answer ${passed ? 'contains' : 'does not contain'} "${e.contains_substring}"` });
  }
  const wanted = e.stop_reason ?? 'end_turn';
  out.push({ name: 'stop_reason', passed: facts.error === null && facts.stop_reason === wanted, detail: `ended with ${facts.stop_reason ?? facts.error}; ${wanted} expected` });
  return out;
}
