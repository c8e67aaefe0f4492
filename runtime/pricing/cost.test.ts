import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Decimal } from 'decimal.js';
import { addUsage, type Usage } from '../types/response.ts';
import { costOf, ratesExponent, scaledCostOf } from './cost.ts';
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

/** The Decimal chain costOf was (and falls back to): the reference its integer sum must equal. */
function chain(u: Usage, r: ModelRates): Decimal {
  return r.input.times(u.input_tokens).plus(r.cache_read.times(u.cached_input_tokens)).plus(r.cache_write.times(u.cache_creation_input_tokens)).plus(r.output.times(u.output_tokens)).dividedBy(1_000_000);
}

// Rates with up to six decimals and token counts far past a real run's, so that some totals exceed Decimal's
// 20 digits (where the chain rounds, and costOf must round the same way).
const fineRate = fc.tuple(fc.integer({ min: 0, max: 10_000_000 }), fc.integer({ min: 0, max: 6 })).map(([n, d]) => new Decimal(n).dividedBy(10 ** d));
const bigTokens = fc.oneof(tokens, fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }));

describe('costOf', () => {
  it('is the Decimal chain to the last digit, rounding included, for any rates and token counts (property)', () => {
    fc.assert(
      fc.property(
        fc.record({ input_tokens: bigTokens, output_tokens: bigTokens, cached_input_tokens: bigTokens, cache_creation_input_tokens: bigTokens }),
        fc.record({ input: fineRate, output: fineRate, cache_read: fineRate, cache_write: fineRate }),
        (u, r) => {
          expect(costOf(u, r).toString()).toBe(chain(u, r).toString());
        },
      ),
      { seed: 2031, numRuns: 2000 },
    );
  });

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

describe('scaledCostOf', () => {
  // Enough digits that no product or sum of the reference rounds.
  const Exact = Decimal.clone({ precision: 200 });
  const exactCost = (u: Usage, r: ModelRates) =>
    new Exact(r.input.toString()).times(u.input_tokens).plus(new Exact(r.cache_read.toString()).times(u.cached_input_tokens)).plus(new Exact(r.cache_write.toString()).times(u.cache_creation_input_tokens)).plus(new Exact(r.output.toString()).times(u.output_tokens)).dividedBy(1_000_000);

  it('is the exact cost in whole 10^(e − 6) USD at the rates\' exponent or any finer one (property)', () => {
    fc.assert(
      fc.property(
        fc.record({ input_tokens: bigTokens, output_tokens: bigTokens, cached_input_tokens: bigTokens, cache_creation_input_tokens: bigTokens }),
        fc.record({ input: fineRate, output: fineRate, cache_read: fineRate, cache_write: fineRate }),
        fc.nat(3),
        (u, r, finer) => {
          const e = ratesExponent(r)! - finer;
          const scaled = scaledCostOf(u, r, e);
          expect(scaled).not.toBeNull();
          expect(new Exact(`${scaled}e${e - 6}`).equals(exactCost(u, r))).toBe(true);
          // Where the total fits Decimal's precision, costOf is that same value.
          if (exactCost(u, r).precision(true) <= Decimal.precision) expect(costOf(u, r).equals(new Decimal(`${scaled}e${e - 6}`))).toBe(true);
        },
      ),
      { seed: 2032, numRuns: 1000 },
    );
  });

  it('says null where the cost is not whole at e: a rate finer than 10^e, a negative rate, a fractional token count', () => {
    const usage = { input_tokens: 1, output_tokens: 1, cached_input_tokens: 1, cache_creation_input_tokens: 1 };
    expect(ratesExponent(sonnet)).toBe(-2);
    // (3 + 15 + 0.30 + 3.75) per million tokens, one token each: 2205 × 10^(−2 − 6) USD.
    expect(scaledCostOf(usage, sonnet, -2)).toBe(2205n);
    expect(scaledCostOf(usage, sonnet, -1)).toBeNull();
    expect(scaledCostOf({ ...usage, input_tokens: 1.5 }, sonnet, -2)).toBeNull();
    expect(scaledCostOf(usage, { ...sonnet, output: new Decimal(-1) }, -2)).toBeNull();
    expect(ratesExponent({ ...sonnet, output: new Decimal(-1) })).toBeNull();
  });
});
