import { describe, expect, it } from 'vitest';
import { createSystemClock } from '../core/clock.ts';
import { createMemoryLogger } from '../core/logger.ts';
import { createEventBus, type BusEvent } from '../events/index.ts';
import { ProviderError } from '../providers/provider.ts';
import { createEvaluator, type EvaluatorOptions, type JudgeRequest } from './evaluator.ts';
import { answer, createFakeJudgeProvider, TEST_PRICES, type FakeReply } from './judge-test-fixtures.ts';
import { createLlmJudge } from './llm-judge.ts';
import { loadRubric } from './rubric.ts';

/** A strict bus (bad payloads throw), a recorder, an evaluator and a judge playing `replies`. */
function setup(replies: FakeReply[], options: Partial<EvaluatorOptions> = {}) {
  const bus = createEventBus({ mode: 'strict', logger: createMemoryLogger(), clock: createSystemClock() });
  const seen: BusEvent[] = [];
  bus.subscribe({ name: 'record', filter: {}, fast_path: true, handler: (e) => void seen.push(e) });
  const fake = createFakeJudgeProvider(replies);
  const judge = createLlmJudge({ provider: fake.provider, model: 'haiku', prices: TEST_PRICES, clock: fake.clock });
  const request: JudgeRequest = { judge, task: 'Make tests/test_calc.py pass.', finalResponse: 'Fixed add().', signals: { workload: 'calc' } };
  return { bus, seen, requests: fake.requests, request, evaluator: createEvaluator({ bus, rubric: loadRubric(), ...options }) };
}

const subject = { kind: 'workload' as const, id: 'run1:calc:1:0', session_id: 'sess_1', turn_id: null, parent_event_id: null };
// Content weight 2 of 10 → heuristic confidence 0.6: hybrid escalates.
const LOW = { completion: 1, final_substring: 0 };
// Content weight 4 (the check) → confidence exactly 0.7: hybrid does not escalate.
const HIGH = { completion: 1, check: 1 };

const types = (seen: BusEvent[]) => seen.map((e) => e.type);
const payload = (e: BusEvent | undefined) => e!.payload as Record<string, unknown>;

/** Every eval.completed / eval.failed closes exactly one earlier eval.started with its eval_id, and is parented by it. */
function expectPaired(seen: BusEvent[]) {
  const started = new Map(seen.filter((e) => e.type === 'eval.started').map((e) => [payload(e).eval_id, e]));
  const closers = seen.filter((e) => e.type === 'eval.completed' || e.type === 'eval.failed');
  expect(closers).toHaveLength(started.size);
  for (const c of closers) expect(c.parent_event_id).toBe(started.get(payload(c).eval_id)!.id);
}

describe('the hidden check gates the judge', () => {
  it('a judge that likes a rep whose check failed cannot lift it to 0.5: its score only orders the rep in the unsolved band', async () => {
    const { bus, seen, request, evaluator } = setup([{ text: answer(0.9, 0.85, 'Looks right.') }]);
    const v = await evaluator.llm(subject, { completion: 1, check: 0 }, request);
    await bus.drain();
    expect(v.score).toBeCloseTo(0.49 * 0.9, 12);
    expect(payload(seen[1])).toMatchObject({ signals: { judge_score: 0.9 } });
  });

  it('a passed check puts the judge score in the solved band', async () => {
    const { evaluator, request } = setup([{ text: answer(0.2, 0.85) }]);
    expect((await evaluator.llm(subject, { completion: 1, check: 1 }, request)).score).toBeCloseTo(0.6, 12);
  });
});

describe('evaluator.llm', () => {
  it('a valid verdict is eval.started(llm) → eval.completed(llm) with the judge model, cost, pricing version, latency and rationale', async () => {
    const { bus, seen, requests, request, evaluator } = setup([{ text: answer(0.9, 0.85, 'Correct fix.') }]);
    const v = await evaluator.llm(subject, LOW, request, { pass: 'A' }, 'ev_parent');
    await bus.drain();
    expect(types(seen)).toEqual(['eval.started', 'eval.completed']);
    expect(payload(seen[0])).toMatchObject({ judge_kind_planned: 'llm' });
    const completed = seen[1]!;
    expect(completed.sensitivity).toBe('user_controlled');
    expect(payload(completed)).toMatchObject({
      eval_id: v.eval_id,
      score: 0.9,
      confidence: 0.85,
      judge_kind: 'llm',
      judge_model: 'anthropic:claude-haiku-4-5',
      judge_cost_usd: '0.0015',
      judge_pricing_version: 'test-prices',
      judge_latency_ms: 250,
      parent_eval_id: 'ev_parent',
      signals: { pass: 'A', applied: { completion: { value: 1, weight: 2 }, final_substring: { value: 0, weight: 2 } }, heuristic: { score: 0.5, confidence: 0.6 }, rationale_redacted: 'Correct fix.' },
    });
    expect(v).toMatchObject({ score: 0.9, judge_kind: 'llm', event_id: completed.id, failed_eval_id: null });
    expect(v.judge_cost_usd.toFixed()).toBe('0.0015');
    expect(v.judge_spend_usd.toFixed()).toBe('0.0015');
    // The judge saw the heuristic signal values and the caller's own signals.
    const text = requests[0]!.messages[0]!.content[0]!;
    expect(text.type === 'text' && text.text).toContain('{"completion":1,"final_substring":0,"workload":"calc"}');
  });

  it('without rationale capture the verdict carries no LLM text and downgrades to pseudonymous', async () => {
    const { bus, seen, request, evaluator } = setup([{ text: answer(0.9, 0.85) }], { captureRationale: false });
    await evaluator.llm(subject, LOW, request);
    await bus.drain();
    expect(seen[1]!.sensitivity).toBe('pseudonymous');
    expect(payload(seen[1]).signals).not.toHaveProperty('rationale_redacted');
  });

  it('a secret in the rationale is redacted before it reaches the trace', async () => {
    const { bus, seen, request, evaluator } = setup([{ text: answer(0.5, 0.5, 'Agent printed sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123 to the log.') }]);
    await evaluator.llm(subject, LOW, request);
    await bus.drain();
    const rationale = (payload(seen[1]).signals as { rationale_redacted: string }).rationale_redacted;
    expect(rationale).toContain('[REDACTED]');
    expect(rationale).not.toContain('abcdefghijklmnop');
  });

  it.each([
    ['invalid JSON', { text: 'Great job!' } as FakeReply, 'judge_output_invalid', '0.0015'],
    ['a provider error', new ProviderError('anthropic: 503 overloaded', 'server_error', 4) as FakeReply, 'judge_call_failed', '0'],
  ])('%s → eval.failed, then the heuristic verdict stands as its own eval.completed', async (_label, reply, mode, spent) => {
    const { bus, seen, request, evaluator } = setup([reply]);
    const v = await evaluator.llm(subject, LOW, request);
    await bus.drain();
    expect(types(seen)).toEqual(['eval.started', 'eval.failed', 'eval.started', 'eval.completed']);
    const failedId = payload(seen[1]).eval_id;
    expect(payload(seen[1])).toMatchObject({ eval_id: payload(seen[0]).eval_id, failure_mode: mode, judge_latency_ms: 250 });
    expect(payload(seen[2])).toMatchObject({ judge_kind_planned: 'heuristic' });
    expect(seen[3]!.sensitivity).toBe('pseudonymous');
    expect(payload(seen[3])).toMatchObject({
      score: 0.5,
      confidence: 0.6,
      judge_kind: 'heuristic',
      judge_model: null,
      judge_cost_usd: '0',
      judge_pricing_version: null,
      signals: { judge_failed: { eval_id: failedId, failure_mode: mode, cost_usd: spent } },
    });
    expect(v).toMatchObject({ score: 0.5, judge_kind: 'heuristic', failed_eval_id: failedId });
    expect(v.judge_spend_usd.toFixed()).toBe(spent);
    expectPaired(seen);
  });

  it('a judge that throws is still judge_call_failed and the heuristic verdict stands', async () => {
    const { bus, seen, request, evaluator } = setup([]);
    const throwing = { model: 'haiku', judge: () => Promise.reject(new Error('boom')) };
    const v = await evaluator.llm(subject, LOW, { ...request, judge: throwing });
    await bus.drain();
    expect(types(seen)).toEqual(['eval.started', 'eval.failed', 'eval.started', 'eval.completed']);
    expect(payload(seen[1])).toMatchObject({ failure_mode: 'judge_call_failed', error_message: 'boom' });
    expect(v.judge_kind).toBe('heuristic');
  });

  it('with no judge available it falls back to the heuristic and says why in signals', async () => {
    const { bus, seen, request, evaluator } = setup([]);
    const v = await evaluator.llm(subject, LOW, { ...request, judge: { unavailable: 'anthropic: no API key; set ANTHROPIC_API_KEY' } });
    await bus.drain();
    expect(types(seen)).toEqual(['eval.started', 'eval.completed']);
    expect(payload(seen[0])).toMatchObject({ judge_kind_planned: 'llm' });
    expect(payload(seen[1])).toMatchObject({ judge_kind: 'heuristic', score: 0.5, judge_cost_usd: '0', signals: { judge_unavailable: 'anthropic: no API key; set ANTHROPIC_API_KEY' } });
    expect(v.judge_spend_usd.isZero()).toBe(true);
  });
});

describe('evaluator.hybrid', () => {
  it('heuristic confidence ≥ 0.7 makes no judge call; the verdict is hybrid at zero judge cost', async () => {
    const { bus, seen, requests, request, evaluator } = setup([{ text: answer(0, 1) }]);
    const v = await evaluator.hybrid(subject, HIGH, request);
    await bus.drain();
    expect(requests).toHaveLength(0);
    expect(types(seen)).toEqual(['eval.started', 'eval.completed']);
    expect(payload(seen[0])).toMatchObject({ judge_kind_planned: 'hybrid' });
    expect(payload(seen[1])).toMatchObject({ judge_kind: 'hybrid', score: 1, confidence: 0.7, judge_model: null, judge_cost_usd: '0', signals: { escalated: false } });
    expect(v).toMatchObject({ score: 1, judge_kind: 'hybrid' });
  });

  it('heuristic confidence < 0.7 escalates: the judge is called once and its verdict is recorded as hybrid', async () => {
    const { bus, seen, requests, request, evaluator } = setup([{ text: answer(0.2, 0.9) }]);
    const v = await evaluator.hybrid(subject, LOW, request);
    await bus.drain();
    expect(requests).toHaveLength(1);
    expect(types(seen)).toEqual(['eval.started', 'eval.completed']);
    expect(payload(seen[1])).toMatchObject({ judge_kind: 'hybrid', score: 0.2, confidence: 0.9, judge_cost_usd: '0.0015', signals: { escalated: true, heuristic: { score: 0.5, confidence: 0.6 } } });
    expect(v.score).toBe(0.2);
  });

  it('an escalated judge with invalid output leaves the heuristic verdict, marked as escalated', async () => {
    const { bus, seen, request, evaluator } = setup([{ text: '{"score": 2}' }]);
    const v = await evaluator.hybrid(subject, LOW, request);
    await bus.drain();
    expect(types(seen)).toEqual(['eval.started', 'eval.failed', 'eval.started', 'eval.completed']);
    expect(payload(seen[0])).toMatchObject({ judge_kind_planned: 'hybrid' });
    expect(payload(seen[3])).toMatchObject({ judge_kind: 'heuristic', score: 0.5, signals: { escalated: true, judge_failed: { failure_mode: 'judge_output_invalid' } } });
    expect(v.score).toBe(0.5);
    expectPaired(seen);
  });
});
