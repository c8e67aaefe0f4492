// The store's money conversions: exact micro-dollars (half-even below a micro-dollar) and floats, the
// same whether a value is converted once or again (they are kept per Decimal object).
import { Decimal } from 'decimal.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { usdToMicros, usdToNumber } from './money.ts';

/** A USD amount with up to 9 decimals, as recorded costs have. */
const arbUsd = fc.tuple(fc.bigInt({ min: 0n, max: 10n ** 12n }), fc.integer({ min: 0, max: 9 })).map(([units, scale]) => new Decimal(units.toString()).div(new Decimal(10).pow(scale)));

describe('money conversions', () => {
  it('micro-dollars round half-even below a micro-dollar', () => {
    expect(usdToMicros(new Decimal('0.0000025'))).toBe(2n);
    expect(usdToMicros(new Decimal('0.0000035'))).toBe(4n);
    expect(usdToMicros(new Decimal('1.234567499'))).toBe(1_234_567n);
  });

  it('answer each value as a fresh conversion does, however often and in whatever order values come', () => {
    fc.assert(
      fc.property(fc.array(arbUsd, { minLength: 1, maxLength: 30 }), fc.array(fc.nat(), { maxLength: 60 }), (values, picks) => {
        const fresh = (d: Decimal) => ({ micros: BigInt(d.times(1_000_000).toDecimalPlaces(0, Decimal.ROUND_HALF_EVEN).toFixed(0)), float: d.toNumber() });
        for (const i of [...values.keys(), ...picks.map((p) => p % values.length)]) {
          const d = values[i]!;
          // An equal value in another object answers alike too.
          for (const x of [d, new Decimal(d)]) expect({ micros: usdToMicros(x), float: usdToNumber(x) }).toEqual(fresh(d));
        }
      }),
      { seed: 28, numRuns: 200 },
    );
  });
});
