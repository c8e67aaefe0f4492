import { Decimal } from 'decimal.js';
import type { EventBus, Sensitivity } from '../events/event.ts';
import { newId, type IdFactory } from '../core/ids.ts';
import { redactSecrets } from '../providers/redact-secrets.ts';
import type { HeuristicRubric } from './rubric.ts';
import { scoreSignals, type HeuristicScore, type SignalValues } from './heuristic.ts';
import { gatedScore } from './gate.ts';
import type { JudgeAvailability, JudgeResult } from './llm-judge.ts';

/** What is being scored (catalog §6.12 subject kinds used by the benchmark). */
export interface EvalSubject {
  kind: 'turn' | 'workload' | 'session';
  id: string;
  session_id: string;
  turn_id: string | null;
  /** The event that prompted the evaluation (turn.completed, session.ended...). */
  parent_event_id: string | null;
}

/** How a verdict was reached (workload `evaluate.rubric`). */
export type JudgeKind = 'heuristic' | 'llm' | 'hybrid';

/** A finished verdict (spec §5). */
export interface Verdict {
  eval_id: string;
  subject_kind: EvalSubject['kind'];
  subject_id: string;
  score: number;
  confidence: number;
  judge_kind: JudgeKind;
  rubric_id: string;
  rubric_version: string;
  signals: Record<string, unknown>;
  /** Id of the eval.completed event, for causal links. */
  event_id: string;
}

/** A verdict from the llm/hybrid paths, with what the judge cost. */
export interface JudgedVerdict extends Verdict {
  judge_model: string | null;
  /** As recorded on eval.completed: the cost of the judge call behind this verdict ("0" when none). */
  judge_cost_usd: Decimal;
  judge_pricing_version: string | null;
  judge_latency_ms: number;
  /** Everything spent on the judge for this subject, including a call whose answer was invalid. */
  judge_spend_usd: Decimal;
  /** eval_id of the eval.failed when the judge failed and the heuristic verdict stands; else null. */
  failed_eval_id: string | null;
}

/** The judge and what it is shown; the heuristic signal values are added to `signals` for it. */
export interface JudgeRequest {
  judge: JudgeAvailability;
  task: string;
  finalResponse: string;
  signals?: Record<string, unknown>;
}

/** Scores subjects and puts eval.started / eval.completed (or eval.failed) on the bus. */
export interface Evaluator {
  heuristic(subject: EvalSubject, values: SignalValues, extra?: Record<string, unknown>, parentEvalId?: string | null): Verdict;
  /** Always asks the judge; on failure or no judge, the heuristic verdict stands (spec §5). */
  llm(subject: EvalSubject, values: SignalValues, request: JudgeRequest, extra?: Record<string, unknown>, parentEvalId?: string | null): Promise<JudgedVerdict>;
  /** Asks the judge only when the heuristic confidence is below HYBRID_ESCALATION_CONFIDENCE. */
  hybrid(subject: EvalSubject, values: SignalValues, request: JudgeRequest, extra?: Record<string, unknown>, parentEvalId?: string | null): Promise<JudgedVerdict>;
  /** Reports that a judge could not produce a verdict (catalog §6.12): eval.started → eval.failed. */
  failed(subject: EvalSubject, failureMode: EvalFailureMode, message: string, judgeLatencyMs?: number): string;
}

/** Why a judge produced no verdict (catalog §6.12 eval.failed). */
export type EvalFailureMode = 'judge_output_invalid' | 'judge_call_failed' | 'throttled_no_heuristic' | 'subject_not_found' | 'rubric_invalid';

/** `hybrid` escalates to the judge below this heuristic confidence (spec §5). */
export const HYBRID_ESCALATION_CONFIDENCE = 0.7;
// The rationale is the only free text a verdict carries; bounded so one event stays small.
const MAX_RATIONALE_CHARS = 1000;

/** Options for createEvaluator. */
export interface EvaluatorOptions {
  bus: EventBus;
  rubric: HeuristicRubric;
  ids?: IdFactory;
  /** Put the judge's rationale on eval.completed as `signals.rationale_redacted` (user_controlled). Default true. */
  captureRationale?: boolean;
}

/** What one eval.completed states beyond the subject and the rubric. */
interface Outcome {
  score: number;
  confidence: number;
  judge_kind: JudgeKind;
  signals: Record<string, unknown>;
  judge: { model: string; cost_usd: Decimal; pricing_version: string | null; latency_ms: number } | null;
}

/** Catalog §6.12: a pricing version only accompanies a cost above zero. */
function pricingVersion(judge: Outcome['judge']): string | null {
  return judge && !judge.cost_usd.isZero() ? judge.pricing_version : null;
}

/** Creates the evaluator; the heuristic path makes no model call. */
export function createEvaluator(options: EvaluatorOptions): Evaluator {
  const { bus, rubric } = options;
  const ids = options.ids ?? newId;
  const captureRationale = options.captureRationale ?? true;
  /** eval.started for a subject; every verdict or failure is parented by it (catalog §6.12). */
  const start = (subject: EvalSubject, planned: JudgeKind = 'heuristic') => {
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
        judge_kind_planned: planned,
        trigger: 'benchmark',
      },
    });
    return { eval_id, started };
  };

  /** eval.failed for a started evaluation (catalog §6.12). */
  const fail = (subject: EvalSubject, begun: ReturnType<typeof start>, failureMode: EvalFailureMode, message: string, judgeLatencyMs: number) => {
    const { eval_id, started } = begun;
    bus.emit({
      session_id: subject.session_id,
      turn_id: subject.turn_id,
      parent_event_id: started.id,
      type: 'eval.failed',
      actor: 'system',
      payload: { eval_id, subject_kind: subject.kind, subject_id: subject.id, failure_mode: failureMode, error_message: message.slice(0, 500), judge_latency_ms: Math.round(judgeLatencyMs) },
    });
    return eval_id;
  };

  /** eval.completed for a started evaluation. */
  const complete = (subject: EvalSubject, begun: ReturnType<typeof start>, outcome: Outcome, parentEvalId: string | null): Verdict => {
    const { eval_id, started } = begun;
    const { judge } = outcome;
    // §4.4.1: only LLM-written text makes the verdict user_controlled; otherwise it downgrades.
    const sensitivity: Sensitivity = outcome.signals.rationale_redacted !== undefined ? 'user_controlled' : 'pseudonymous';
    // What the event and the returned Verdict share.
    const verdict = {
      eval_id,
      subject_kind: subject.kind,
      subject_id: subject.id,
      score: outcome.score,
      confidence: outcome.confidence,
      judge_kind: outcome.judge_kind,
      rubric_id: rubric.rubric_id,
      rubric_version: rubric.rubric_version,
      signals: outcome.signals,
    };
    const completed = bus.emit({
      session_id: subject.session_id,
      turn_id: subject.turn_id,
      parent_event_id: started.id,
      type: 'eval.completed',
      actor: 'system',
      sensitivity,
      payload: {
        ...verdict,
        judge_model: judge?.model ?? null,
        judge_cost_usd: (judge?.cost_usd ?? new Decimal(0)).toFixed(),
        judge_pricing_version: pricingVersion(judge),
        judge_latency_ms: judge?.latency_ms ?? 0,
        parent_eval_id: parentEvalId,
      },
    });
    return { ...verdict, event_id: completed.id };
  };

  /** Adds the judge's cost fields to a verdict, matching what its eval.completed recorded. */
  const withJudge = (verdict: Verdict, judge: Outcome['judge'], spend: Decimal = judge?.cost_usd ?? new Decimal(0), failedEvalId: string | null = null): JudgedVerdict => ({
    ...verdict,
    judge_model: judge?.model ?? null,
    judge_cost_usd: judge?.cost_usd ?? new Decimal(0),
    judge_pricing_version: pricingVersion(judge),
    judge_latency_ms: judge?.latency_ms ?? 0,
    judge_spend_usd: spend,
    failed_eval_id: failedEvalId,
  });

  const heuristicSignals = (h: HeuristicScore, extra: Record<string, unknown>) => ({
    ...extra,
    applied: Object.fromEntries(h.applied.map((a) => [a.name, { value: a.value, weight: a.weight }])),
  });

  /** The judged path shared by `llm` and `hybrid` once the judge is to be asked. */
  const judged = async (kind: 'llm' | 'hybrid', h: HeuristicScore, subject: EvalSubject, values: SignalValues, request: JudgeRequest, extra: Record<string, unknown>, parentEvalId: string | null): Promise<JudgedVerdict> => {
    const base = { ...heuristicSignals(h, extra), heuristic: { score: h.score, confidence: h.confidence } };
    const escalation = kind === 'hybrid' ? { escalated: true } : {};
    const begun = start(subject, kind);
    const { judge } = request;
    if ('unavailable' in judge) {
      const signals = { ...base, ...escalation, judge_unavailable: judge.unavailable };
      return withJudge(complete(subject, begun, { score: h.score, confidence: h.confidence, judge_kind: 'heuristic', signals, judge: null }, parentEvalId), null);
    }
    let result: JudgeResult;
    try {
      result = await judge.judge({ task: request.task, finalResponse: request.finalResponse, signals: { ...values, ...request.signals } });
    } catch (e) {
      // createLlmJudge never throws; a caller's own LlmJudge might, and the verdict must still land.
      const error_message = redactSecrets(String((e as Error)?.message ?? e));
      result = { ok: false, failure_mode: 'judge_call_failed', error_message, cost_usd: new Decimal(0), pricing_version: null, latency_ms: 0, model: judge.model };
    }
    if (!result.ok) {
      // eval.failed closes this evaluation; the heuristic verdict stands as its own started/completed pair.
      const eval_id = fail(subject, begun, result.failure_mode, result.error_message, result.latency_ms);
      const judge_failed = { eval_id, failure_mode: result.failure_mode, judge_model: result.model, cost_usd: result.cost_usd.toFixed(), latency_ms: result.latency_ms };
      const verdict = complete(subject, start(subject), { score: h.score, confidence: h.confidence, judge_kind: 'heuristic', signals: { ...base, ...escalation, judge_failed }, judge: null }, parentEvalId);
      return withJudge(verdict, null, result.cost_usd, eval_id);
    }
    const rationale = captureRationale && result.rationale.trim() !== '' ? { rationale_redacted: redactSecrets(result.rationale).slice(0, MAX_RATIONALE_CHARS) } : {};
    // The hidden check gates the judge as it gates the heuristic: the judge only orders reps inside the band.
    const gated = values.check === undefined ? {} : { judge_score: result.score };
    const score = values.check === undefined ? result.score : gatedScore(values.check === 1, result.score);
    return withJudge(complete(subject, begun, { score, confidence: result.confidence, judge_kind: kind, signals: { ...base, ...escalation, ...rationale, ...gated }, judge: result }, parentEvalId), result);
  };

  return {
    failed(subject, failureMode, message, judgeLatencyMs = 0) {
      return fail(subject, start(subject), failureMode, message, judgeLatencyMs);
    },

    heuristic(subject, values, extra = {}, parentEvalId = null) {
      const h = scoreSignals(values, rubric);
      return complete(subject, start(subject), { score: h.score, confidence: h.confidence, judge_kind: 'heuristic', signals: heuristicSignals(h, extra), judge: null }, parentEvalId);
    },

    llm(subject, values, request, extra = {}, parentEvalId = null) {
      return judged('llm', scoreSignals(values, rubric), subject, values, request, extra, parentEvalId);
    },

    async hybrid(subject, values, request, extra = {}, parentEvalId = null) {
      const h = scoreSignals(values, rubric);
      if (h.confidence >= HYBRID_ESCALATION_CONFIDENCE) {
        const signals = { ...heuristicSignals(h, extra), heuristic: { score: h.score, confidence: h.confidence }, escalated: false };
        return withJudge(complete(subject, start(subject, 'hybrid'), { score: h.score, confidence: h.confidence, judge_kind: 'hybrid', signals, judge: null }, parentEvalId), null);
      }
      return judged('hybrid', h, subject, values, request, extra, parentEvalId);
    },
  };
}
