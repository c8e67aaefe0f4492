import type { EventBus } from '../events/event.ts';
import { newId, type IdFactory } from '../core/ids.ts';
import type { HeuristicRubric } from './rubric.ts';
import { scoreSignals, type SignalValues } from './heuristic.ts';

/** What is being scored (catalog §6.12 subject kinds used by the benchmark). */
export interface EvalSubject {
  kind: 'turn' | 'workload' | 'session';
  id: string;
  session_id: string;
  turn_id: string | null;
  /** The event that prompted the evaluation (turn.completed, session.ended...). */
  parent_event_id: string | null;
}

/** A finished verdict (spec §5). */
export interface Verdict {
  eval_id: string;
  subject_kind: EvalSubject['kind'];
  subject_id: string;
  score: number;
  confidence: number;
  judge_kind: 'heuristic' | 'llm' | 'hybrid';
  rubric_id: string;
  rubric_version: string;
  signals: Record<string, unknown>;
  /** Id of the eval.completed event, for causal links. */
  event_id: string;
}

/** Scores subjects and puts eval.started / eval.completed (or eval.failed) on the bus. */
export interface Evaluator {
  heuristic(subject: EvalSubject, values: SignalValues, extra?: Record<string, unknown>, parentEvalId?: string | null): Verdict;
  /** Reports that a judge could not produce a verdict (catalog §6.12): eval.started → eval.failed. */
  failed(subject: EvalSubject, failureMode: EvalFailureMode, message: string, judgeLatencyMs?: number): string;
}

/** Why a judge produced no verdict (catalog §6.12 eval.failed). */
export type EvalFailureMode = 'judge_output_invalid' | 'judge_call_failed' | 'throttled_no_heuristic' | 'subject_not_found' | 'rubric_invalid';

/** Creates the evaluator; the heuristic path makes no model call. */
export function createEvaluator(options: { bus: EventBus; rubric: HeuristicRubric; ids?: IdFactory }): Evaluator {
  const { bus, rubric } = options;
  const ids = options.ids ?? newId;
  /** eval.started for a subject; every verdict or failure is parented by it (catalog §6.12). */
  const start = (subject: EvalSubject) => {
    const eval_id = ids();
    const started = bus.emit({
      session_id: subject.session_id,
      turn_id: subject.turn_id,
      parent_event_id: subject.parent_event_id,
      type: 'eval.started',
      actor: 'system',
      payload: {
        eval_id,
        subject_kind: subject.kind,
        subject_id: subject.id,
        rubric_id: rubric.rubric_id,
        rubric_version: rubric.rubric_version,
        judge_kind_planned: 'heuristic',
        trigger: 'benchmark',
      },
    });
    return { eval_id, started };
  };
  return {
    failed(subject, failureMode, message, judgeLatencyMs = 0) {
      const { eval_id, started } = start(subject);
      bus.emit({
        session_id: subject.session_id,
        turn_id: subject.turn_id,
        parent_event_id: started.id,
        type: 'eval.failed',
        actor: 'system',
        payload: { eval_id, subject_kind: subject.kind, subject_id: subject.id, failure_mode: failureMode, error_message: message.slice(0, 500), judge_latency_ms: Math.round(judgeLatencyMs) },
      });
      return eval_id;
    },

    heuristic(subject, values, extra = {}, parentEvalId = null) {
      const { eval_id, started } = start(subject);
      const { score, confidence, applied } = scoreSignals(values, rubric);
      const signals = { ...extra, applied: Object.fromEntries(applied.map((a) => [a.name, { value: a.value, weight: a.weight }])) };
      const completed = bus.emit({
        session_id: subject.session_id,
        turn_id: subject.turn_id,
        parent_event_id: started.id,
        type: 'eval.completed',
        actor: 'system',
        // No LLM rationale is captured, so the §4.4.1 downgrade to pseudonymous applies.
        sensitivity: 'pseudonymous',
        payload: {
          eval_id,
          subject_kind: subject.kind,
          subject_id: subject.id,
          score,
          confidence,
          judge_kind: 'heuristic',
          judge_model: null,
          judge_cost_usd: '0',
          judge_pricing_version: null,
          judge_latency_ms: 0,
          rubric_id: rubric.rubric_id,
          rubric_version: rubric.rubric_version,
          signals,
          parent_eval_id: parentEvalId,
        },
      });
      return {
        eval_id,
        subject_kind: subject.kind,
        subject_id: subject.id,
        score,
        confidence,
        judge_kind: 'heuristic',
        rubric_id: rubric.rubric_id,
        rubric_version: rubric.rubric_version,
        signals,
        event_id: completed.id,
      };
    },
  };
}
