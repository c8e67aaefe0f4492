import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { PriceTableFile } from '../../schemas/types/price-table.ts';
import { loadModelRegistry, UnknownModelError } from '../models/index.ts';
import { createPriceTable, DEFAULT_PRICE_TABLE_PATH, loadPriceTable } from '../pricing/index.ts';
import { AdvancedRouter } from './advanced-router.ts';

const registry = loadModelRegistry();
const router = new AdvancedRouter(registry, loadPriceTable());
/** The shipped price table restricted to `ids`. */
const pricesOnly = (...ids: string[]) => {
  const file = JSON.parse(readFileSync(DEFAULT_PRICE_TABLE_PATH, 'utf8')) as PriceTableFile;
  return createPriceTable({ ...file, models: Object.fromEntries(Object.entries(file.models).filter(([id]) => ids.includes(id))) });
};
// 400 characters: 100 estimated input tokens.
const PROMPT_400 = 'Refactor the parser. '.padEnd(400, 'x');

describe('AdvancedRouter (§12): explicit', () => {
  it('routes to the named model (alias resolved), with no task detection and the §12.4 reason', () => {
    const d = router.route({ prompt: 'Refactor the parser', mode: 'explicit', model_override: 'sonnet' });
    expect(d).toMatchObject({ model_name: 'anthropic:claude-sonnet-4-6', mode: 'explicit', task_type_detected: null, constraints: null });
    expect(d.score).toBeCloseTo(4.4, 10); // sim competence 0.85 on the 1–5 scale
    expect(d.reason).toMatch(/^User selected anthropic:claude-sonnet-4-6; alternatives available/);
  });

  it('alternatives are every other priced model, with costs and savings from the price table', () => {
    // Hand-computed from runtime/data/prices.json (USD per million tokens) for 100 input + 500 output tokens.
    // sonnet 3/15: 0.0003 + 0.0075 = 0.0078 (the chosen model).
    const d = router.route({ prompt: PROMPT_400, mode: 'explicit', model_override: 'anthropic:claude-sonnet-4-6', expected_output_tokens: 500 });
    const byModel = Object.fromEntries(d.alternatives.map((a) => [a.model, a]));
    expect(Object.keys(byModel).sort()).toEqual(['anthropic:claude-haiku-4-5', 'anthropic:claude-opus-4-5', 'openai:gpt-5', 'openai:gpt-5-mini']);
    // haiku 1/5: 0.0001 + 0.0025 = 0.0026; (0.0078 - 0.0026) / 0.0078 = 66.67%
    expect(byModel['anthropic:claude-haiku-4-5']).toMatchObject({ estimated_cost_usd: '0.0026', savings_percent: 66.67 });
    // opus 5/25: 0.0005 + 0.0125 = 0.013; dearer by 66.67%
    expect(byModel['anthropic:claude-opus-4-5']).toMatchObject({ estimated_cost_usd: '0.013', savings_percent: -66.67 });
    // gpt-5-mini 0.25/2: 0.000025 + 0.001 = 0.001025; 0.006775 / 0.0078 = 86.86%
    expect(byModel['openai:gpt-5-mini']).toMatchObject({ estimated_cost_usd: '0.001025', savings_percent: 86.86 });
    // gpt-5 1.25/10: 0.000125 + 0.005 = 0.005125; 0.002675 / 0.0078 = 34.29%
    expect(byModel['openai:gpt-5']).toMatchObject({ estimated_cost_usd: '0.005125', savings_percent: 34.29 });
    expect(byModel['openai:gpt-5']!.estimated_quality).toBeCloseTo(4.4, 10);
  });

  it('the expected output length changes the estimates', () => {
    // 100 input + 100 output tokens: haiku 0.0001 + 0.0005 = 0.0006, sonnet 0.0003 + 0.0015 = 0.0018.
    const d = router.route({ prompt: PROMPT_400, mode: 'explicit', model_override: 'haiku', expected_output_tokens: 100 });
    const sonnet = d.alternatives.find((a) => a.model === 'anthropic:claude-sonnet-4-6')!;
    expect(sonnet.estimated_cost_usd).toBe('0.0018');
    expect(sonnet.savings_percent).toBe(-200); // (0.0006 - 0.0018) / 0.0006
  });

  it('an unknown model throws UnknownModelError naming the known ones', () => {
    expect(() => router.route({ prompt: 'x', mode: 'explicit', model_override: 'gpt-99' })).toThrow(UnknownModelError);
    expect(() => router.route({ prompt: 'x', mode: 'explicit', model_override: 'gpt-99' })).toThrow(/haiku/);
  });

  it('no model_override, or a known model without a price, is refused', () => {
    expect(() => router.route({ prompt: 'x', mode: 'explicit' })).toThrow(/needs model_override/);
    const r = new AdvancedRouter(registry, pricesOnly('anthropic:claude-haiku-4-5'));
    expect(() => r.route({ prompt: 'x', mode: 'explicit', model_override: 'opus' })).toThrow(/anthropic:claude-opus-4-5 has no price/);
  });
});

describe('AdvancedRouter (§12): autopilot', () => {
  it('is the default mode: detects the task, uses its default constraints, says "Auto-detected"', () => {
    const d = router.route({ prompt: 'What is a hash map?', expected_output_tokens: 50 });
    expect(d).toMatchObject({ mode: 'autopilot', task_type_detected: 'faq', constraints: { min_quality: 3.5, max_latency_ms: 500 } });
    expect(d.reason).toMatch(/^Auto-detected faq/);
    expect(d.reason).toMatch(/assumed, not measured/);
    // No model answers in 500 ms (every TTFT is ≥ 500); the cheapest at ≥ 3.5 is gpt-5 (10/M output vs sonnet 15/M).
    expect(d.model_name).toBe('openai:gpt-5');
    expect(d.reason).toMatch(/no model meets the latency budget/);
  });

  it('legal gets its 4.2 quality floor; its 2 s cap does not loosen the default 500 ms budget', () => {
    const d = router.route({ prompt: 'Who carries liability under this contract clause?', expected_output_tokens: 50 });
    expect(d.task_type_detected).toBe('legal');
    expect(d.constraints).toEqual({ min_quality: 4.2, max_latency_ms: 500 });
    // ≥ 4.2: sonnet and gpt-5 (4.4), opus (4.68); none within 500 ms; gpt-5 is the cheapest of them.
    expect(d.model_name).toBe('openai:gpt-5');
  });

  it('an unrecognised prompt routes as general', () => {
    const d = router.route({ prompt: 'Bananas and kites', expected_output_tokens: 50 });
    expect(d.task_type_detected).toBe('general');
    expect(d.reason).toMatch(/^Auto-detected general/);
    expect(d.score).toBeGreaterThanOrEqual(3.5);
  });
});

describe('AdvancedRouter (§12): guided', () => {
  it('low quality + slow latency takes the cheapest model clearing 3.0, with the §12.4 reason', () => {
    const d = router.route({ prompt: 'What is a hash map?', mode: 'guided', quality_preference: 'low', latency_preference: 'slow', expected_output_tokens: 50 });
    expect(d).toMatchObject({ mode: 'guided', model_name: 'openai:gpt-5-mini', task_type_detected: 'faq', constraints: { min_quality: 3.0, max_latency_ms: 2000 } });
    expect(d.reason).toMatch(/^User preference \+ optimization \(/);
  });

  it('the latency budget excludes a cheaper model that is too slow', () => {
    // high (≥ 4.0) within 2 s for 50 tokens: gpt-5 is cheaper but its TTFT is 2.5 s; sonnet answers in ≈ 1.8 s.
    const d = router.route({ prompt: 'What is a hash map?', mode: 'guided', quality_preference: 'high', latency_preference: 'slow', expected_output_tokens: 50 });
    expect(d.model_name).toBe('anthropic:claude-sonnet-4-6');
    // When no model meets the budget, the cheapest meeting the quality bar, and the reason says so.
    const tight = router.route({ prompt: 'What is a hash map?', mode: 'guided', quality_preference: 'high', latency_preference: 'instant', expected_output_tokens: 50 });
    expect(tight.model_name).toBe('openai:gpt-5');
    expect(tight.reason).toMatch(/no model meets the latency budget, cheapest meeting quality/);
  });

  it('the task type is a floor under the user preference', () => {
    const d = router.route({ prompt: 'Implement a function that parses dates', mode: 'guided', quality_preference: 'low', latency_preference: 'slow', expected_output_tokens: 50 });
    expect(d.constraints).toEqual({ min_quality: 4.0, max_latency_ms: 500 });
    expect(d.score).toBeGreaterThanOrEqual(4.0);
  });

  it('max quality picks a model at ≥ 4.5 when one exists, else the best available and says so', () => {
    const d = router.route({ prompt: 'What is a hash map?', mode: 'guided', quality_preference: 'max', latency_preference: 'slow', expected_output_tokens: 50 });
    expect(d.model_name).toBe('anthropic:claude-opus-4-5');
    const cheapOnly = new AdvancedRouter(registry, pricesOnly('anthropic:claude-haiku-4-5', 'openai:gpt-5-mini'));
    const e = cheapOnly.route({ prompt: 'What is a hash map?', mode: 'guided', quality_preference: 'max', expected_output_tokens: 50 });
    expect(e.score).toBeCloseTo(3.4, 10);
    expect(e.reason).toMatch(/no model meets the quality bar, best available/);
  });

  it('an invalid preference throws naming the allowed values', () => {
    expect(() => router.route({ prompt: 'x y z', mode: 'guided', quality_preference: 'best' })).toThrow(/low, medium, high, max/);
    expect(() => router.route({ prompt: 'x y z', mode: 'guided', latency_preference: 'asap' })).toThrow(/slow, normal, fast, instant/);
  });
});

describe('AdvancedRouter (§12): every mode', () => {
  it('refuses to route when no registry model has a price', () => {
    const r = new AdvancedRouter(registry, pricesOnly());
    expect(() => r.route({ prompt: 'What is a hash map?' })).toThrow(/no model in the registry has a price/);
  });
});
