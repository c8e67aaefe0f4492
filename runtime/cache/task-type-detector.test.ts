import { describe, expect, it } from 'vitest';
import { MIN_TASK_CONFIDENCE, TaskTypeDetector } from './task-type-detector.ts';

describe('TaskTypeDetector (§10)', () => {
  const d = new TaskTypeDetector();

  // §10.4's table, two representative prompts per type, plus our `legal` type.
  it.each([
    ['Summarize this article in three bullets', 'summarization'],
    ['TL;DR of the meeting notes, please', 'summarization'],
    ['Why does the build fail? Explain the reason', 'reasoning'],
    ['Analyze the trade-offs of sharding', 'reasoning'],
    ['Implement a function that parses dates', 'coding'],
    ['Write code for a class that wraps the socket', 'coding'],
    ['Translate this paragraph, convert to German', 'translation'],
    ['Please translate the menu', 'translation'],
    ['Classify these tickets and categorize them', 'classification'],
    ['Which category does this email belong to?', 'classification'],
    ['What is a vector database?', 'faq'],
    ['How do I reset my password?', 'faq'],
    ['Does the GDPR liability clause apply?', 'legal'],
  ])('%s → %s', (prompt, type) => {
    const r = d.detect(prompt);
    expect(r.task_type).toBe(type);
    expect(r.confidence).toBeGreaterThanOrEqual(MIN_TASK_CONFIDENCE);
  });

  it('an empty or blank prompt is general with zero confidence', () => {
    expect(d.detect('')).toEqual({ task_type: 'general', confidence: 0, intent: 'general' });
    expect(d.detect('   \n\t')).toEqual({ task_type: 'general', confidence: 0, intent: 'general' });
  });

  it('a prompt matching no pattern falls back to general', () => {
    expect(d.detect('Bananas and kites')).toEqual({ task_type: 'general', confidence: 0, intent: 'general' });
  });

  it('an ambiguous prompt goes to the type with more matching phrases', () => {
    // coding: "function"; reasoning: "explain", "why".
    const r = d.detect('Explain why this function returns null');
    expect(r.task_type).toBe('reasoning');
    expect(r.intent).toBe('explain');
  });

  it('a tie between types is decided the same way every time (the earlier-listed type)', () => {
    // summarization "summarize" vs reasoning "explain": one each.
    const a = d.detect('Summarize and explain the outage');
    expect(a.task_type).toBe('summarization');
    expect(d.detect('Summarize and explain the outage')).toEqual(a);
  });

  it('matches whole words only: "classification" or "functional" are no keywords', () => {
    expect(d.detect('The classification of functional groups').task_type).toBe('general');
  });

  it('is case-insensitive and reports the first matching phrase, lower-cased, as the intent', () => {
    expect(d.detect('SUMMARIZE THE REPORT')).toMatchObject({ task_type: 'summarization', intent: 'summarize' });
  });

  it('confidence is 0.5 for one match, rises with each further match, and is capped at 0.95', () => {
    expect(d.detect('summarize it').confidence).toBeCloseTo(0.5, 10);
    expect(d.detect('summarize the summary').confidence).toBeCloseTo(0.65, 10);
    expect(d.detect('summarize: a summary, tl;dr').confidence).toBeCloseTo(0.8, 10);
    expect(d.detect('summarize summary recap condense tldr summary').confidence).toBe(0.95);
  });
});
