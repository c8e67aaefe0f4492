import { describe, expect, it } from 'vitest';
import { ConstraintInterpreter } from './constraint-interpreter.ts';

describe('ConstraintInterpreter (§11)', () => {
  const c = new ConstraintInterpreter();

  // §11.4, quality → threshold, on a task type without override (latency left at its default).
  it.each([
    ['low', 3.0],
    ['medium', 3.5],
    ['high', 4.0],
    ['max', 4.5],
  ])('quality %s → minimum quality %d', (q, min) => {
    expect(c.interpret(q, null, 'faq')).toEqual({ min_quality: min, max_latency_ms: 500 });
  });

  // §11.4, latency → budget (quality left at its default).
  it.each([
    ['slow', 2000],
    ['normal', 500],
    ['fast', 300],
    ['instant', 150],
  ])('latency %s → budget %d ms', (l, ms) => {
    expect(c.interpret(null, l, 'faq')).toEqual({ min_quality: 3.5, max_latency_ms: ms });
  });

  // Overrides: the task's floor on quality and cap on latency, never loosening a stricter user choice.
  it.each([
    ['coding', 'low', 'slow', 4.0, 500],
    ['coding', 'max', 'instant', 4.5, 150],
    ['reasoning', 'low', 'slow', 4.0, 500],
    ['reasoning', 'high', 'fast', 4.0, 300],
    ['legal', 'low', 'slow', 4.2, 2000],
    ['legal', 'max', 'fast', 4.5, 300],
    ['legal', 'max', 'slow', 4.5, 2000],
    ['faq', 'low', 'instant', 3.0, 150], // no override: the user's choice as it is
  ])('%s with quality %s and latency %s → %d, %d ms', (task, q, l, min, ms) => {
    expect(c.interpret(q, l, task)).toEqual({ min_quality: min, max_latency_ms: ms });
  });

  it('null or absent preferences take the medium / normal defaults', () => {
    expect(c.interpret(null, null, 'general')).toEqual({ min_quality: 3.5, max_latency_ms: 500 });
    expect(c.interpret(undefined, undefined, 'faq')).toEqual({ min_quality: 3.5, max_latency_ms: 500 });
  });

  it('defaults for a task type are the defaults under its override (autopilot)', () => {
    expect(c.defaultsFor('coding')).toEqual({ min_quality: 4.0, max_latency_ms: 500 });
    expect(c.defaultsFor('legal')).toEqual({ min_quality: 4.2, max_latency_ms: 500 });
    expect(c.defaultsFor('summarization')).toEqual({ min_quality: 3.5, max_latency_ms: 500 });
  });

  it('an unknown preference throws naming the allowed values', () => {
    expect(() => c.interpret('ultra', null, 'faq')).toThrow(/'ultra' is not one of low, medium, high, max/);
    expect(() => c.interpret(null, 'warp', 'faq')).toThrow(/'warp' is not one of slow, normal, fast, instant/);
    expect(() => c.interpret('High', null, 'faq')).toThrow(RangeError); // values are lower-case
  });

  it('an object-prototype name is no preference and no task type', () => {
    expect(() => c.interpret('constructor', null, 'faq')).toThrow(RangeError);
    expect(() => c.interpret(null, 'toString', 'faq')).toThrow(RangeError);
    expect(c.interpret(null, null, 'constructor')).toEqual({ min_quality: 3.5, max_latency_ms: 500 });
  });
});
