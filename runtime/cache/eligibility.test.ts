import { describe, expect, it } from 'vitest';
import type { Message } from '../types/content.ts';
import type { CanonicalRequest } from '../types/request.ts';
import { exactTierEligibility, isTimeSensitive, semanticTierEligibility } from './eligibility.ts';

const user = (text: string): Message => ({ role: 'user', content: [{ type: 'text', text }] });
const req = (messages: Message[], extra: Partial<CanonicalRequest> = {}): CanonicalRequest => ({
  model: 'anthropic:claude-haiku-4-5',
  system: null,
  system_volatile: null,
  tools: [],
  messages,
  temperature: 0,
  max_tokens: 256,
  ...extra,
});
const tool = { name: 'read_file', description: 'read', input_schema: { type: 'object' } };
const continuation: Message[] = [
  user('Run the tests please and report.'),
  { role: 'assistant', content: [{ type: 'tool_use', id: 'tu_1', name: 'run_shell', input: { cmd: 'npm test' } }] },
  { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'tu_1', content: '1 failed', is_error: false }] },
];

describe('cache eligibility', () => {
  it('serves a plain question from both tiers', () => {
    expect(semanticTierEligibility(req([user('What is the capital of France?')]))).toEqual({ eligible: true, query: 'What is the capital of France?' });
    expect(exactTierEligibility(req([user('What is the capital of France?')]), false).eligible).toBe(true);
  });
  it('never serves a tool-result continuation, from either tier', () => {
    expect(semanticTierEligibility(req(continuation))).toEqual({ eligible: false, reason: 'tool_result_continuation' });
    expect(exactTierEligibility(req(continuation), true)).toEqual({ eligible: false, reason: 'tool_result_continuation' });
  });
  it('never serves a request that offers tools', () => {
    expect(semanticTierEligibility(req([user('Fix the failing test in parser.py')], { tools: [tool] }))).toEqual({ eligible: false, reason: 'tools_requested' });
    expect(exactTierEligibility(req([user('Fix the failing test in parser.py')], { tools: [tool] }), true).eligible).toBe(false);
  });
  it('refuses empty, blank and very short queries', () => {
    expect(semanticTierEligibility(req([user('')]))).toEqual({ eligible: false, reason: 'empty_query' });
    expect(semanticTierEligibility(req([user('   ')]))).toEqual({ eligible: false, reason: 'empty_query' });
    expect(semanticTierEligibility(req([user('ok')]))).toEqual({ eligible: false, reason: 'short_query' });
    expect(semanticTierEligibility(req([user('yes, apply that change')]))).toEqual({ eligible: true, query: 'yes, apply that change' });
    expect(exactTierEligibility(req([user('ok')]), true).eligible).toBe(false);
  });
  it('refuses time-sensitive queries', () => {
    expect(semanticTierEligibility(req([user("What's the weather in Paris today?")]))).toEqual({ eligible: false, reason: 'time_sensitive' });
    expect(isTimeSensitive('What is the latest stable Node.js?')).toBe(true);
    expect(isTimeSensitive('What is the capital of France?')).toBe(false);
  });
  it('refuses a request that does not end on a user message', () => {
    expect(semanticTierEligibility(req([user('Hello there, how are you?'), { role: 'assistant', content: [{ type: 'text', text: 'Fine.' }] }]))).toEqual({
      eligible: false,
      reason: 'no_user_query',
    });
  });
  it('serves Tier 1 above temperature 0 only when the caller opts in', () => {
    const r = req([user('What is the capital of France?')], { temperature: 0.7 });
    expect(exactTierEligibility(r, false)).toEqual({ eligible: false, reason: 'sampling_not_deterministic' });
    expect(exactTierEligibility(r, true).eligible).toBe(true);
  });
});
