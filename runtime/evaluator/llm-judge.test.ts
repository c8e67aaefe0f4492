import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createVirtualClock } from '../core/clock.ts';
import { loadModelRegistry } from '../models/model-registry.ts';
import { loadPriceTable } from '../pricing/price-table.ts';
import { createAnthropicProvider } from '../providers/anthropic/anthropic-provider.ts';
import { ProviderError } from '../providers/provider.ts';
import { anthropicError, anthropicText, startFakeAnthropic, type LoopbackServer } from '../../test/support/loopback/index.ts';
import { judgeSystemPrompt } from './judge-prompt.ts';
import { answer, createFakeJudgeProvider, TEST_PRICES } from './judge-test-fixtures.ts';
import { createLlmJudge, resolveJudge } from './llm-judge.ts';

const input = { task: 'Make the failing test in tests/test_calc.py pass.', finalResponse: 'Fixed add() in calc.py; all tests pass.', signals: { check: 1, completion: 1 } };

describe('createLlmJudge with a fake provider', () => {
  it('returns the verdict with its exact cost, pricing version, model and clock-measured latency', async () => {
    const { provider, requests, clock } = createFakeJudgeProvider([{ text: answer(0.9, 0.8) }], undefined, 340);
    const judge = createLlmJudge({ provider, model: 'haiku', prices: TEST_PRICES, clock });
    const r = await judge.judge(input);
    expect(r).toMatchObject({ ok: true, score: 0.9, confidence: 0.8, rationale: 'The hidden tests pass and the fix is minimal.', pricing_version: 'test-prices', latency_ms: 340, model: 'anthropic:claude-haiku-4-5' });
    // 1000 input at $1/M + 100 output at $5/M, exactly.
    expect(r.cost_usd.toFixed()).toBe('0.0015');
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({ model: 'haiku', temperature: 0 });
  });

  it('an answer that is not the verdict JSON is judge_output_invalid, and the call still costs what it cost', async () => {
    const { provider, clock } = createFakeJudgeProvider([{ text: 'Looks good to me!' }]);
    const r = await createLlmJudge({ provider, model: 'haiku', prices: TEST_PRICES, clock }).judge(input);
    expect(r).toMatchObject({ ok: false, failure_mode: 'judge_output_invalid', pricing_version: 'test-prices', latency_ms: 250 });
    expect(!r.ok && r.error_message).toMatch(/no JSON object/);
    expect(r.cost_usd.toFixed()).toBe('0.0015');
  });

  it('a provider error is judge_call_failed at zero cost, and never throws', async () => {
    const { provider, clock } = createFakeJudgeProvider([new ProviderError('anthropic: 503 overloaded', 'server_error', 4)]);
    const r = await createLlmJudge({ provider, model: 'haiku', prices: TEST_PRICES, clock }).judge(input);
    expect(r).toMatchObject({ ok: false, failure_mode: 'judge_call_failed', error_message: 'anthropic: 503 overloaded', pricing_version: null, latency_ms: 250 });
    expect(r.cost_usd.isZero()).toBe(true);
  });

  it('a judge model missing from the price table costs 0 with no pricing version', async () => {
    const { provider, clock } = createFakeJudgeProvider([{ text: answer(1, 1), model: 'openai:unpriced' }]);
    const r = await createLlmJudge({ provider, model: 'unpriced', prices: TEST_PRICES, clock }).judge(input);
    expect(r).toMatchObject({ ok: true, pricing_version: null });
    expect(r.cost_usd.isZero()).toBe(true);
  });
});

describe('resolveJudge', () => {
  const clock = createVirtualClock();
  it('no configured judge model is a reason, not an error', () => {
    expect(resolveJudge({ model: undefined, providerFor: () => createFakeJudgeProvider([]).provider, prices: TEST_PRICES, clock })).toEqual({ unavailable: 'no evaluate.llm_judge_model configured' });
  });
  it('a provider that cannot be built (no key) becomes the unavailable reason', () => {
    const registry = loadModelRegistry();
    const r = resolveJudge({ model: 'haiku', providerFor: () => createAnthropicProvider({ apiKey: '', registry }), prices: TEST_PRICES, clock });
    expect(r).toEqual({ unavailable: 'anthropic: no API key; set ANTHROPIC_API_KEY' });
  });
  it('a buildable provider gives a judge for the model', () => {
    const r = resolveJudge({ model: 'haiku', providerFor: () => createFakeJudgeProvider([]).provider, prices: TEST_PRICES, clock });
    expect('judge' in r && r.model).toBe('haiku');
  });
});

describe('one judge call through the Anthropic adapter against the loopback Messages API', () => {
  let server: LoopbackServer;
  beforeEach(async () => {
    server = await startFakeAnthropic();
  });
  afterEach(async () => {
    await server.close();
  });
  const judgeOn = () => {
    const clock = createVirtualClock(1_767_225_600_000_000);
    const provider = createAnthropicProvider({ apiKey: 'sk-ant-api03-TESTKEY0123456789abcdef', baseURL: server.baseURL, registry: loadModelRegistry(), clock, maxRetries: 0 });
    return createLlmJudge({ provider, model: 'haiku', prices: loadPriceTable(), clock });
  };

  it('sends temperature 0, the judge prompt, the task and the final response; parses a fenced answer; prices the usage', async () => {
    server.enqueue(anthropicText('```json\n' + answer(0.75, 0.6, 'Fix is right; no test output shown.') + '\n```', { input_tokens: 1200, output_tokens: 60 }));
    const r = await judgeOn().judge(input);
    expect(r).toMatchObject({ ok: true, score: 0.75, confidence: 0.6, rationale: 'Fix is right; no test output shown.', model: 'anthropic:claude-haiku-4-5', pricing_version: '2026-11-01' });
    // Shipped haiku rates: 1200 × $1/M + 60 × $5/M.
    expect(r.cost_usd.toFixed()).toBe('0.0015');
    expect(server.requests).toHaveLength(1);
    const body = server.requests[0]!.body as { model: string; temperature: number; max_tokens: number; system: { text: string }[]; messages: { content: { text: string }[] }[] };
    expect(body).toMatchObject({ model: 'claude-haiku-4-5', temperature: 0 });
    expect(body.system.map((b) => b.text).join('')).toContain(judgeSystemPrompt());
    const userText = body.messages[0]!.content.map((b) => b.text).join('');
    expect(userText).toContain(input.task);
    expect(userText).toContain(input.finalResponse);
    expect(userText).toContain('"check":1');
  });

  it('a rejected key is judge_call_failed with the key redacted', async () => {
    server.enqueue(anthropicError(401, 'authentication_error', 'invalid x-api-key'));
    const r = await judgeOn().judge(input);
    expect(r).toMatchObject({ ok: false, failure_mode: 'judge_call_failed' });
    expect(!r.ok && r.error_message).not.toContain('TESTKEY');
  });
});
