import { describe, expect, it, vi } from 'vitest';
import fc from 'fast-check';
import { Decimal } from 'decimal.js';
import { TEST_PRICES } from './events-fixture.ts';
import { createPriceTable } from '../pricing/price-table.ts';
import { addScaledSavings, computeSavings, decimalText, NO_SCALED_SAVINGS, roundedPercentText, savingsFromScaled, savingsText, savingsTextFromScaled, scaledSavingsOf, sumSavings, tableExponent, UnpricedBaselineError, type TokenGroup } from './savings.ts';

const table = TEST_PRICES;
const SONNET = 'anthropic:claude-sonnet-4-6';

const group = (model: string | null, rows: number, i: number, o: number, c: number, w: number): TokenGroup => ({
  model,
  rows,
  input_tokens: i,
  output_tokens: o,
  cached_input_tokens: c,
  cache_creation_input_tokens: w,
});

describe('computeSavings', () => {
  it('re-prices actual tokens and the baseline counterfactual by hand, to the last digit', () => {
    const r = computeSavings(
      [group('anthropic:claude-haiku-4-5', 2, 1200, 600, 2000, 400), group('openai:gpt-5-mini', 1, 3000, 1000, 1000, 0)],
      SONNET,
      table,
    );
    // haiku: 1200*1 + 600*5 + 2000*0.10 + 400*1.25 = 4900; mini: 3000*0.25 + 1000*2 + 1000*0.025 = 2775 (per 1e6)
    expect(r.actual_repriced_usd.toString()).toBe('0.007675');
    // sonnet over the same tokens, cache tokens at sonnet's cache rates: 4200*3 + 1600*15 + 3000*0.30 + 400*3.75 = 39000
    expect(r.baseline_repriced_usd.toString()).toBe('0.039');
    expect(r.savings_usd.toString()).toBe('0.031325');
    expect(r.savings_pct!.toFixed(6)).toBe('80.320513');
    expect(r).toMatchObject({ rows_total: 3, rows_missing_from_price_table: 0, pricing_version: 'test-1', baseline_model: SONNET });
  });

  it('counts rows of unpriced (or model-less) groups and excludes them from both sums', () => {
    const priced = group('anthropic:claude-haiku-4-5', 1, 1000, 0, 0, 0);
    const r = computeSavings([priced, group('local:llama-3', 4, 9e6, 9e6, 0, 0), group(null, 1, 5, 5, 5, 5)], SONNET, table);
    expect(r.rows_total).toBe(6);
    expect(r.rows_missing_from_price_table).toBe(5);
    expect(r.actual_repriced_usd.toString()).toBe('0.001');
    expect(r.baseline_repriced_usd.toString()).toBe('0.003');
  });

  it('answers savings_pct null when the baseline costs nothing', () => {
    const none = computeSavings([], SONNET, table);
    expect(none.savings_pct).toBeNull();
    expect(none.savings_usd.isZero()).toBe(true);
    const onlyUnpriced = computeSavings([group('local:llama-3', 3, 10, 10, 0, 0)], SONNET, table);
    expect(onlyUnpriced.savings_pct).toBeNull();
    expect(onlyUnpriced.rows_missing_from_price_table).toBe(3);
  });

  it('refuses a baseline the table does not price, naming it and the priced models', () => {
    expect(() => computeSavings([], 'anthropic:claude-unknown', table)).toThrow(UnpricedBaselineError);
    expect(() => computeSavings([], 'anthropic:claude-unknown', table)).toThrow(
      /'anthropic:claude-unknown' is not in price table test-1; priced models: .*claude-haiku-4-5/,
    );
  });

  it('is additive: savings of a split selection sum exactly to savings of the whole', () => {
    const models = ['anthropic:claude-haiku-4-5', SONNET, 'openai:gpt-5-mini', 'local:unpriced'];
    const t = fc.integer({ min: 0, max: 2_000_000 });
    const groupArb = fc
      .record({ m: fc.constantFrom(...models), rows: fc.integer({ min: 1, max: 50 }), i: t, o: t, c: t, w: t })
      .map((g) => group(g.m, g.rows, g.i, g.o, g.c, g.w));
    fc.assert(
      fc.property(fc.array(groupArb), fc.array(groupArb), (a, b) => {
        const whole = computeSavings([...a, ...b], SONNET, table);
        const parts = sumSavings([computeSavings(a, SONNET, table), computeSavings(b, SONNET, table)], SONNET, 'test-1');
        expect(parts.actual_repriced_usd.equals(whole.actual_repriced_usd)).toBe(true);
        expect(parts.baseline_repriced_usd.equals(whole.baseline_repriced_usd)).toBe(true);
        expect(parts.savings_usd.equals(whole.savings_usd)).toBe(true);
        expect(parts.rows_total).toBe(whole.rows_total);
        expect(parts.rows_missing_from_price_table).toBe(whole.rows_missing_from_price_table);
        expect(parts.savings_pct === null ? null : parts.savings_pct.toString()).toBe(whole.savings_pct?.toString() ?? null);
      }),
    );
  });

  it('saves nothing when the actual model is the baseline', () => {
    fc.assert(
      fc.property(fc.nat(), fc.nat(), fc.nat(), fc.nat(), (i, o, c, w) => {
        const r = computeSavings([group(SONNET, 1, i, o, c, w)], SONNET, table);
        expect(r.savings_usd.equals(new Decimal(0))).toBe(true);
      }),
    );
  });

  it('refuses to add results for different baselines', () => {
    const a = computeSavings([], SONNET, table);
    expect(() => sumSavings([a], 'anthropic:claude-haiku-4-5', 'test-1')).toThrow(/cannot add savings/);
  });
});

describe('savings from exact per-session sums', () => {
  // Rates with up to six decimals and token counts far past a run's: some totals pass Decimal's 20 digits.
  const rate = fc.tuple(fc.integer({ min: 0, max: 10_000_000 }), fc.integer({ min: 0, max: 6 })).map(([n, d]) => new Decimal(n).dividedBy(10 ** d).toFixed());
  const rates = fc.record({ input: rate, output: rate, cache_read: rate, cache_write: rate });
  const models = ['m:a', 'm:b', 'm:c', 'm:unpriced', null];
  const tokens = fc.oneof(fc.integer({ min: 0, max: 5_000_000 }), fc.integer({ min: 0, max: 2 ** 40 }));
  const groupArb = fc.record({ m: fc.constantFrom(...models), rows: fc.integer({ min: 1, max: 50 }), i: tokens, o: tokens, c: tokens, w: tokens }).map((g) => group(g.m, g.rows, g.i, g.o, g.c, g.w));
  const text = (r: ReturnType<typeof computeSavings>) => JSON.stringify({ ...r, actual_repriced_usd: r.actual_repriced_usd.toString(), baseline_repriced_usd: r.baseline_repriced_usd.toString(), savings_usd: r.savings_usd.toString(), savings_pct: r.savings_pct?.toString() ?? null });

  it('is computeSavings over the merged groups, to the last digit, or null where that rounds; sessions priced apart add up (property)', () => {
    fc.assert(
      fc.property(fc.record({ a: rates, b: rates, c: rates }), fc.array(fc.array(groupArb, { maxLength: 4 }), { maxLength: 5 }), fc.constantFrom('m:a', 'm:b', 'm:c'), (r, sessions, baseline) => {
        const t = createPriceTable({ version: 'fine-1', currency: 'USD', unit: 'per_million_tokens', models: { 'm:a': r.a, 'm:b': r.b, 'm:c': r.c } });
        const e = tableExponent(t)!;
        let sum = NO_SCALED_SAVINGS;
        for (const groups of sessions) sum = addScaledSavings(sum, scaledSavingsOf(groups, baseline, t, e)!);
        const whole = computeSavings(mergeByModel(sessions.flat()), baseline, t);
        const exact = savingsFromScaled(sum, e, t.version, baseline);
        // The text made from the integers is the exact result's, and there when it is.
        expect(savingsTextFromScaled(sum, e, t.version, baseline)).toEqual(exact && savingsText(exact));
        if (exact) expect(text(exact)).toBe(text(whole));
        // Null only where a total is longer than Decimal's precision at e (where the chain may have rounded).
        else expect(Math.max(sum.actual.toString().length, sum.baseline.toString().length)).toBeGreaterThan(Decimal.precision);
      }),
      { seed: 2033, numRuns: 600 },
    );
  });

  it('makes its difference and percentage without a Decimal minus, division or product (one per rep, workload and pass of a report)', () => {
    const spies = [vi.spyOn(Decimal.prototype, 'minus'), vi.spyOn(Decimal.prototype, 'dividedBy'), vi.spyOn(Decimal.prototype, 'times')];
    try {
      const e = tableExponent(table)!;
      const r = savingsFromScaled(scaledSavingsOf([group('anthropic:claude-haiku-4-5', 1, 1200, 300, 70, 0)], SONNET, table, e)!, e, table.version, SONNET)!;
      expect(r.savings_pct!.toString()).toBe(r.savings_usd.dividedBy(r.baseline_repriced_usd).times(100).toString());
      expect(spies.map((s) => s.mock.calls.length)).toEqual([0, 1, 1]); // the check's own division and product only
    } finally {
      for (const s of spies) s.mockRestore();
    }
  });

  it('is null for a baseline the table does not price (computeSavings then refuses it)', () => {
    expect(scaledSavingsOf([], 'local:unpriced', table, tableExponent(table)!)).toBeNull();
  });
});

/** Groups summed per model, as analytics merges a selection's sessions. */
function mergeByModel(groups: readonly TokenGroup[]): TokenGroup[] {
  const by = new Map<string | null, TokenGroup>();
  for (const g of groups) {
    const m = by.get(g.model);
    if (!m) by.set(g.model, { ...g });
    else for (const k of ['rows', 'input_tokens', 'output_tokens', 'cached_input_tokens', 'cache_creation_input_tokens'] as const) m[k] += g[k];
  }
  return [...by.values()];
}

describe('roundedPercentText', () => {
  const digits = (max: number) => fc.bigInt({ min: 0n, max: 10n ** BigInt(max) });
  /** Decimal's own answer: the quotient at its precision (ROUND_HALF_UP), times 100. */
  const byDecimal = (num: bigint, den: bigint) => new Decimal(num.toString()).dividedBy(den.toString()).times(100).toString();

  it('is Decimal dividedBy then times(100), digit for digit, at any sign and length (property)', () => {
    fc.assert(
      fc.property(digits(24), digits(24).map((d) => d + 1n), fc.boolean(), (n, d, negative) => {
        const num = negative ? -n : n;
        expect(new Decimal(roundedPercentText(num, d, Decimal.precision)).toString()).toBe(byDecimal(num, d));
      }),
      { seed: 2911, numRuns: 2000 },
    );
  });

  it('rounds a tie away from zero, as ROUND_HALF_UP does, and carries into a new digit', () => {
    // 21 significant digits ending in 5 over a power of ten: exactly half of the 20th digit is left over.
    fc.assert(
      fc.property(fc.bigInt({ min: 10n ** 19n, max: 10n ** 20n - 1n }), fc.integer({ min: 0, max: 6 }), fc.boolean(), (m, shift, negative) => {
        const num = (negative ? -1n : 1n) * (m * 10n + 5n);
        const den = 10n ** BigInt(21 + shift);
        expect(new Decimal(roundedPercentText(num, den, Decimal.precision)).toString()).toBe(byDecimal(num, den));
      }),
      { seed: 2912, numRuns: 300 },
    );
    expect(new Decimal(roundedPercentText(999999999999999999995n, 10n ** 21n, 20)).toString()).toBe('100');
    expect(new Decimal(roundedPercentText(-999999999999999999995n, 10n ** 21n, 20)).toString()).toBe(byDecimal(-999999999999999999995n, 10n ** 21n));
    expect(roundedPercentText(0n, 7n, 20)).toBe('0');
  });
});

describe('decimalText', () => {
  it('is Decimal\'s toString of coefficient · 10^exponent, in fixed and exponential notation, trailing zeros and sign included (property)', () => {
    const coefficient = fc.oneof(fc.bigInt({ min: -(10n ** 25n), max: 10n ** 25n }), fc.tuple(fc.bigInt({ min: -999n, max: 999n }), fc.integer({ min: 0, max: 12 })).map(([m, z]) => m * 10n ** BigInt(z)));
    fc.assert(
      fc.property(coefficient, fc.integer({ min: -45, max: 45 }), (c, e) => {
        expect(decimalText(c, e)).toBe(new Decimal(`${c}e${e}`).toString());
      }),
      { seed: 2913, numRuns: 3000 },
    );
    // The bounds of fixed notation (toExpNeg −7, toExpPos 21), each side.
    for (const [c, e] of [[1n, -7], [1n, -6], [12n, -8], [1n, 20], [1n, 21], [-15n, 20], [0n, 5], [1000n, -3]] as const) expect(decimalText(c, e)).toBe(new Decimal(`${c}e${e}`).toString());
  });
});
