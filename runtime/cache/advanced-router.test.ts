import { describe, expect, it } from 'vitest';
import { loadModelRegistry, UnknownModelError } from '../models/index.ts';
import { loadPriceTable } from '../pricing/index.ts';
import { AdvancedRouter } from './advanced-router.ts';
import { ConstraintInterpreter } from './constraint-interpreter.ts';
import { TaskTypeDetector } from './task-type-detector.ts';

describe('TaskTypeDetector (§10)', () => {
  const d = new TaskTypeDetector();
  it.each([
    ['Summarize this article in three bullets', 'summarization'],
    ['Why does the build fail? Explain the reason', 'reasoning'],
    ['Implement a function that parses dates', 'coding'],
    ['Translate this paragraph, convert to German', 'translation'],
    ['Classify these tickets and categorize them', 'classification'],
    ['What is a vector database?', 'faq'],
  ])('%s → %s', (prompt, type) => expect(d.detect(prompt).task_type).toBe(type));
  it('falls back to general with zero confidence for empty or unmatched prompts', () => {
    expect(d.detect('')).toEqual({ task_type: 'general', confidence: 0, intent: 'general' });
    expect(d.detect('Bananas and kites').task_type).toBe('general');
  });
  it('is more confident with more matching patterns', () => {
    expect(d.detect('summarize: a summary, tl;dr').confidence).toBeGreaterThan(d.detect('summarize it').confidence);
  });
});

describe('ConstraintInterpreter (§11)', () => {
  const c = new ConstraintInterpreter();
  it('maps preferences and applies task overrides', () => {
    expect(c.interpret('low', 'instant', 'faq')).toEqual({ min_quality: 3.0, max_latency_ms: 150 });
    expect(c.interpret('low', 'slow', 'coding')).toEqual({ min_quality: 4.0, max_latency_ms: 500 });
    expect(c.interpret('max', 'slow', 'legal')).toEqual({ min_quality: 4.5, max_latency_ms: 2000 });
    expect(c.interpret(null, null, 'general')).toEqual({ min_quality: 3.5, max_latency_ms: 500 });
  });
  it('names the allowed values for a bad preference', () => {
    expect(() => c.interpret('ultra', null, 'faq')).toThrow(/low, medium, high, max/);
    expect(() => c.interpret(null, 'warp', 'faq')).toThrow(/slow, normal, fast, instant/);
  });
});

describe('AdvancedRouter (§12)', () => {
  const router = new AdvancedRouter(loadModelRegistry(), loadPriceTable());
  it('explicit: the named model, with every priced alternative and its saving against it', () => {
    const d = router.route({ prompt: 'Refactor the parser', mode: 'explicit', model_override: 'sonnet' });
    expect(d.model_name).toBe('anthropic:claude-sonnet-4-6');
    const haiku = d.alternatives.find((a) => a.model === 'anthropic:claude-haiku-4-5')!;
    expect(haiku.savings_percent).toBeGreaterThan(0);
    expect(d.alternatives.every((a) => a.model !== d.model_name)).toBe(true);
  });
  it('explicit: an unknown model throws naming the known ones', () => {
    expect(() => router.route({ prompt: 'x', mode: 'explicit', model_override: 'gpt-99' })).toThrow(UnknownModelError);
  });
  it('autopilot: a faq goes to a cheaper model than a coding task', () => {
    const faq = router.route({ prompt: 'What is a hash map?', expected_output_tokens: 50 });
    const code = router.route({ prompt: 'Implement a function and a class for a hash map', expected_output_tokens: 50 });
    expect(faq.task_type_detected).toBe('faq');
    expect(code.task_type_detected).toBe('coding');
    expect(AdvancedRouter.quality(loadModelRegistry().resolve(code.model_name))).toBeGreaterThanOrEqual(4.0);
    expect(faq.reason).toMatch(/assumed/);
  });
  it('guided: a max-quality preference never picks a model below 4.5 when one exists', () => {
    const d = router.route({ prompt: 'What is a hash map?', mode: 'guided', quality_preference: 'max', latency_preference: 'slow', expected_output_tokens: 50 });
    expect(d.score).toBeGreaterThanOrEqual(4.5);
    expect(() => router.route({ prompt: 'x y z', mode: 'guided', quality_preference: 'best' })).toThrow(RangeError);
  });
});
