import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Decimal } from 'decimal.js';
import { addUsage, type Usage } from '../types/response.ts';
import { costOf } from './cost.ts';
import type { ModelRates } from './rates.ts';

const tokens = fc.integer({ min: 0, max: 50_000_000 });
const usageArb: fc.Arbitrary<Usage> = fc.record({
  input_tokens: tokens,
  output_tokens: tokens,
  cached_input_tokens: tokens,
  cache_creation_input_tokens: tokens,
});
// Rates as the price file writes them: up to three decimals, non-negative.
const rate = fc.integer({ min: 0, max: 100_000 }).map((n) => new Decimal(n).dividedBy(1000));
const ratesArb: fc.Arbitrary<ModelRates> = fc.record({ input: rate, output: rate, cache_read: rate, cache_write: rate });

const sonnet: ModelRates = {
  input: new Decimal('3'),
  output: new Decimal('15'),
  cache_read: new Decimal('0.30'),
  cache_write: new Decimal('3.75'),
};

describe('costOf', () => {
  it('prices each token kind at its own rate, per million tokens', () => {
    const usage = { input_tokens: 1200, output_tokens: 350, cached_input_tokens: 8000, cache_creation_input_tokens: 2048 };
    // 1200*3 + 350*15 + 8000*0.30 + 2048*3.75 = 3600 + 5250 + 2400 + 7680 = 18930 → /1e6
    expect(costOf(usage, sonnet).toString()).toBe('0.01893');
  });

  it('is zero for zero usage', () => {
    expect(costOf({ input_tokens: 0, output_tokens: 0, cached_input_tokens: 0, cache_creation_input_tokens: 0 }, sonnet).isZero()).toBe(true);
  });

  it('is additive over usages (exact)', () => {
    fc.assert(
      fc.property(usageArb, usageArb, ratesArb, (a, b, r) => {
        expect(costOf(addUsage(a, b), r).equals(costOf(a, r).plus(costOf(b, r)))).toBe(true);
      }),
    );
  });

  it('is linear in token counts (scaling usage by k scales cost by k)', () => {
    fc.assert(
      fc.property(usageArb, ratesArb, fc.integer({ min: 0, max: 1000 }), (u, r, k) => {
        const scaled: Usage = {
          input_tokens: u.input_tokens * k,
          output_tokens: u.output_tokens * k,
          cached_input_tokens: u.cached_input_tokens * k,
          cache_creation_input_tokens: u.cache_creation_input_tokens * k,
        };
        expect(costOf(scaled, r).equals(costOf(u, r).times(k))).toBe(true);
      }),
    );
  });

  it('is linear in rates and never negative', () => {
    fc.assert(
      fc.property(usageArb, ratesArb, ratesArb, (u, r1, r2) => {
        const sum: ModelRates = {
          input: r1.input.plus(r2.input),
          output: r1.output.plus(r2.output),
          cache_read: r1.cache_read.plus(r2.cache_read),
          cache_write: r1.cache_write.plus(r2.cache_write),
        };
        expect(costOf(u, sum).equals(costOf(u, r1).plus(costOf(u, r2)))).toBe(true);
        expect(costOf(u, r1).isNegative()).toBe(false);
      }),
    );
  });
});
