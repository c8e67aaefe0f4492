import type { SignalValues } from '../../runtime/evaluator/index.ts';
import { forbiddenGroundingSignal, groundingSignal, substringSignal, toolHealthSignal } from '../../runtime/evaluator/index.ts';
import type { RepOutcome } from '../../runtime/evaluator/index.ts';
import type { TurnResult } from '../../runtime/sessions/index.ts';
import type { Assertion } from '../../schemas/types/report.ts';
import type { WorkloadSpec } from '../workloads/workload.ts';

/**
 * The content signals a workload's outcome produces (spec §5); shared by the workload and every turn verdict.
 * `check` is the rep's gated outcome (null without `evaluate.check`): only `solved` sets the check signal to 1.
 */
export function contentSignals(spec: WorkloadSpec, finalText: string, check: RepOutcome | null): SignalValues {
  const ev = spec.evaluate ?? {};
  const out: SignalValues = {};
  if (ev.expect_substring_in_final_response) out.final_substring = substringSignal(ev.expect_substring_in_final_response, finalText);
  const g = groundingSignal(ev.grounding_tokens ?? [], finalText);
  if (g !== undefined) out.grounding = g;
  const f = forbiddenGroundingSignal(ev.forbidden_grounding ?? [], finalText);
  if (f !== undefined) out.no_forbidden_grounding = f;
  if (check !== null) out.check = check === 'solved' ? 1 : 0;
  return out;
}

/** A turn completed when it ended with its expected stop reason and nothing raised. */
export function turnCompleted(turn: TurnResult, expected: string): boolean {
  return turn.error === null && turn.stop_reason === expected;
}

/** Process signals of one turn: completion, expectations met, tool health. */
export function turnSignals(turn: TurnResult, expectedStop: string, assertions: readonly Assertion[]): SignalValues {
  return {
    completion: turnCompleted(turn, expectedStop) ? 1 : 0,
    turn_expectations: assertions.length === 0 ? 1 : assertions.filter((a) => a.passed).length / assertions.length,
    tool_health: toolHealthSignal(turn.failed_tool_calls, turn.tool_calls),
  };
}

/** Process signals of the whole workload run. */
export function workloadSignals(turns: readonly TurnResult[], expectedStops: readonly string[], assertions: readonly Assertion[]): SignalValues {
  const turnAssertions = assertions.filter((a) => a.scope !== 'workload');
  return {
    completion: turns.length === expectedStops.length && turns.every((t, i) => turnCompleted(t, expectedStops[i]!)) ? 1 : 0,
    turn_expectations: turnAssertions.length === 0 ? 1 : turnAssertions.filter((a) => a.passed).length / turnAssertions.length,
    tool_health: toolHealthSignal(
      turns.reduce((a, t) => a + t.failed_tool_calls, 0),
      turns.reduce((a, t) => a + t.tool_calls, 0),
    ),
  };
}
