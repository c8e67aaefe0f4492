import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { loadRubric } from './rubric.ts';
import { forbiddenGroundingSignal, groundingSignal, scoreSignals, substringSignal, toolHealthSignal } from './heuristic.ts';
import { checkTurnExpectations } from './turn-expectations.ts';

const rubric = loadRubric();

describe('heuristic rubric (spec §5)', () => {
  it('weights the signals exactly as the spec table', () => {
    const w = Object.fromEntries(Object.entries(rubric.signals).map(([k, v]) => [k, v.weight]));
    expect(w).toEqual({ completion: 2, turn_expectations: 1, tool_health: 1, final_substring: 2, grounding: 2, no_forbidden_grounding: 2, check: 4 });
  });

  it('without a check, score is the weighted mean of the signals present only', () => {
    // completion 1 (w2), tool health 0.5 (w1), grounding 0 (w2): (2 + 0.5 + 0) / 5
    const r = scoreSignals({ completion: 1, tool_health: 0.5, grounding: 0 }, rubric);
    expect(r.score).toBeCloseTo(2.5 / 5, 12);
    expect(r.confidence).toBeCloseTo(0.6, 12);
  });

  it('a failed check gates the score below 0.5: the other signals only order it (0.49 · their mean)', () => {
    // completion 1 (w2), tool health 0.5 (w1): mean 2.5 / 3; check 0 → 0.49 · 2.5 / 3
    const r = scoreSignals({ completion: 1, tool_health: 0.5, check: 0 }, rubric);
    expect(r.score).toBeCloseTo((0.49 * 2.5) / 3, 12);
    // content weight present = check 4 → 0.5 + 0.5 * 0.4
    expect(r.confidence).toBeCloseTo(0.7, 12);
    // The case: every signal but the check perfect used to score ~0.65; now it is unsolved.
    expect(scoreSignals({ completion: 1, turn_expectations: 1, tool_health: 1, final_substring: 1, check: 0 }, rubric).score).toBeCloseTo(0.49, 12);
  });

  it('a passed check scores 0.5 + 0.5 · the mean of the other signals', () => {
    expect(scoreSignals({ completion: 0, tool_health: 1, check: 1 }, rubric).score).toBeCloseTo(0.5 + 0.5 / 3, 12);
    expect(scoreSignals({ check: 1 }, rubric).score).toBe(0.5);
    expect(scoreSignals({ check: 0 }, rubric).score).toBe(0);
  });

  it('the band holds for any signal values: check 1 → [0.5, 1], anything else → [0, 0.49], order kept inside a band (property)', () => {
    const unit = fc.double({ min: 0, max: 1, noNaN: true });
    const opt = fc.option(unit, { nil: undefined });
    const signals = fc.record({ completion: opt, turn_expectations: opt, tool_health: opt, final_substring: opt, grounding: opt, no_forbidden_grounding: opt });
    fc.assert(
      fc.property(signals, signals, unit, (a, b, check) => {
        const passed = scoreSignals({ ...a, check: 1 }, rubric).score;
        const failed = scoreSignals({ ...a, check }, rubric).score;
        expect(passed).toBeGreaterThanOrEqual(0.5);
        expect(passed).toBeLessThanOrEqual(1 + 1e-12);
        if (check < 1) {
          expect(failed).toBeGreaterThanOrEqual(0);
          expect(failed).toBeLessThan(0.5);
        }
        // Inside a band the other signals keep their order.
        const ha = scoreSignals(a, rubric).score;
        const hb = scoreSignals(b, rubric).score;
        const ga = scoreSignals({ ...a, check: 0 }, rubric).score;
        const gb = scoreSignals({ ...b, check: 0 }, rubric).score;
        if (ha < hb) expect(ga).toBeLessThanOrEqual(gb);
      }),
    );
  });

  it('confidence is 1 with every content signal present and 0.5 with none', () => {
    expect(scoreSignals({ completion: 1, final_substring: 1, grounding: 1, no_forbidden_grounding: 1, check: 1 }, rubric).confidence).toBe(1);
    expect(scoreSignals({ completion: 1, turn_expectations: 1 }, rubric).confidence).toBe(0.5);
  });

  it('score stays in [0,1] and is 1 only when every present signal is 1 (property)', () => {
    const v = fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: undefined });
    fc.assert(
      fc.property(fc.record({ completion: fc.double({ min: 0, max: 1, noNaN: true }), tool_health: v, check: v, grounding: v }), (values) => {
        const r = scoreSignals(values, rubric);
        expect(r.score).toBeGreaterThanOrEqual(0);
        expect(r.score).toBeLessThanOrEqual(1 + 1e-12);
        const all1 = Object.values(values).every((x) => x === undefined || x === 1);
        if (all1) expect(r.score).toBeCloseTo(1, 12);
      }),
    );
  });

  it('rejects a signal outside [0,1]', () => {
    expect(() => scoreSignals({ completion: 1.5 }, rubric)).toThrow(/completion/);
  });

  it('signal helpers', () => {
    expect(substringSignal('Fixed', 'the bug is FIXED now')).toBe(1);
    expect(substringSignal('fixed', 'nothing')).toBe(0);
    expect(groundingSignal(['alpha', 'beta', 'gamma', 'delta'], 'Alpha and beta')).toBe(0.5);
    expect(groundingSignal([], 'x')).toBeUndefined();
    expect(forbiddenGroundingSignal(['redis'], 'we use Redis')).toBe(0);
    expect(forbiddenGroundingSignal(['redis'], 'we use sqlite')).toBe(1);
    expect(toolHealthSignal(0, 0)).toBe(1);
    expect(toolHealthSignal(1, 4)).toBe(0.75);
  });
});

describe('turn expectations', () => {
  it('checks each present assertion and defaults stop_reason to end_turn', () => {
    const r = checkTurnExpectations(
      { min_tool_calls: 2, max_tool_calls: 3, contains_substring: 'done' },
      { tool_calls: 4, final_text: 'All DONE', stop_reason: 'end_turn', error: null },
    );
    expect(r.map((a) => [a.name, a.passed])).toEqual([
      ['min_tool_calls', true],
      ['max_tool_calls', false],
      ['contains_substring', true],
      ['stop_reason', true],
    ]);
  });

  it('a turn that raised fails its stop_reason assertion', () => {
    const r = checkTurnExpectations(undefined, { tool_calls: 0, final_text: '', stop_reason: null, error: 'provider down' });
    expect(r).toEqual([{ name: 'stop_reason', passed: false, detail: 'ended with provider down; end_turn expected' }]);
  });
});
