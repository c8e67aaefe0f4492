import { describe, expect, it } from 'vitest';
import { createSystemClock } from '../core/clock.ts';
import { createMemoryLogger } from '../core/logger.ts';
import { createEventBus, type BusEvent } from '../events/index.ts';
import { createEvaluator } from './evaluator.ts';
import { loadRubric } from './rubric.ts';

function setup() {
  const bus = createEventBus({ mode: 'strict', logger: createMemoryLogger(), clock: createSystemClock() });
  const seen: BusEvent[] = [];
  bus.subscribe({ name: 'record', filter: {}, fast_path: true, handler: (e) => void seen.push(e) });
  return { bus, seen, evaluator: createEvaluator({ bus, rubric: loadRubric() }) };
}

const subject = { kind: 'turn' as const, id: 'turn_1', session_id: 'sess_1', turn_id: 'turn_1', parent_event_id: null };

describe('evaluator events (catalog §6.12), validated by a strict bus', () => {
  it('a heuristic verdict is eval.started then eval.completed with the same eval_id, parented, zero judge cost', async () => {
    const { bus, seen, evaluator } = setup();
    const v = evaluator.heuristic(subject, { completion: 1, check: 0 }, { note: 'x' }, 'ev_parent');
    await bus.drain();
    expect(seen.map((e) => e.type)).toEqual(['eval.started', 'eval.completed']);
    const [started, completed] = seen as [BusEvent, BusEvent];
    expect(completed.parent_event_id).toBe(started.id);
    expect(completed.payload).toMatchObject({ eval_id: v.eval_id, score: v.score, judge_kind: 'heuristic', judge_cost_usd: '0', parent_eval_id: 'ev_parent' });
    expect(completed.sensitivity).toBe('pseudonymous');
    // The failed check gates it: 0.49 · completion (the only other signal).
    expect(v.score).toBeCloseTo(0.49, 12);
  });

  it('a judge that could not run gives eval.started then eval.failed with its failure mode', async () => {
    const { bus, seen, evaluator } = setup();
    const id = evaluator.failed(subject, 'judge_call_failed', 'evaluate.check could not run: no /bin/sh');
    await bus.drain();
    expect(seen.map((e) => e.type)).toEqual(['eval.started', 'eval.failed']);
    expect(seen[1]!.payload).toMatchObject({ eval_id: id, failure_mode: 'judge_call_failed', error_message: 'evaluate.check could not run: no /bin/sh' });
  });
});
