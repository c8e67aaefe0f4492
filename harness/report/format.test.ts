import { Decimal } from 'decimal.js';
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { checkCell, estimateCell, fixedText, pct, qualityCell, rate, usd } from './format.ts';
import type { Rep } from '../../schemas/types/report.ts';

describe('report cell formatters', () => {
  it('an estimate cell says "(no variation)" for a zero-width interval, never [x, x], as the headline does', () => {
    const f = (x: number) => x.toFixed(1);
    expect(estimateCell({ estimate: 66.7, ci_low: 66.7, ci_high: 66.7 } as never, f)).toBe('66.7 (no variation)');
    expect(estimateCell({ estimate: 40, ci_low: 11.9, ci_high: 68.1 } as never, f)).toBe('40.0 [11.9, 68.1]');
    expect(estimateCell({ estimate: 40, ci_low: null, ci_high: null } as never, f)).toBe('40.0 (no interval)');
  });

  it('money rounds half-up on the exact decimal, not on a float', () => {
    // 2.00025 as a float is 2.000249999…, which float formatting rounds down.
    expect((2.00025).toFixed(4)).toBe('2.0002');
    expect(usd('2.00025')).toBe('2.0003');
    expect(usd('0.00015')).toBe('0.0002');
    expect(usd('123456789012.123456789')).toBe('123456789012.1235');
  });

  it('money display is within half a unit of the fourth decimal of the exact value (property)', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 15n), max: 10n ** 15n }), fc.integer({ min: 0, max: 12 }), (units, scale) => {
        const exact = new Decimal(units.toString()).div(new Decimal(10).pow(scale));
        const shown = new Decimal(usd(exact.toFixed()));
        expect(shown.minus(exact).abs().lte('0.00005')).toBe(true);
        expect(usd(exact.toFixed())).toMatch(/^-?\d+\.\d{4}$/);
      }),
    );
  });

  it('fixes decimal text as Decimal toFixed does, digit for digit: ties away from zero, exponents, signs, zeros (property)', () => {
    // Text as Decimal writes it (toString: exponential past 1e21 or below 1e-7; toFixed), of values with few and many digits.
    const value = fc.oneof(
      fc.tuple(fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }), fc.integer({ min: -30, max: 30 })).map(([c, e]) => new Decimal(`${c}e${e}`)),
      fc.tuple(fc.bigInt({ min: -9999n, max: 9999n }), fc.integer({ min: 0, max: 8 })).map(([c, d]) => new Decimal(`${c}5e-${d + 1}`)),
    );
    fc.assert(
      fc.property(value, fc.integer({ min: 0, max: 8 }), fc.boolean(), (v, places, fixed) => {
        const text = fixed ? v.toFixed() : v.toString();
        expect(fixedText(text, places)).toBe(new Decimal(text).toFixed(places));
      }),
      { seed: 2914, numRuns: 3000 },
    );
    for (const [text, places] of [['-0.00001', 4], ['-0', 2], ['0', 0], ['2.5', 0], ['-2.5', 0], ['9.99995', 4], ['1e+21', 2], ['1.5e-7', 6], ['123', 3]] as const)
      expect(fixedText(text, places), text).toBe(new Decimal(text).toFixed(places));
  });

  it('money and percent cells round on the text, without a Decimal (a report table prints some 250)', () => {
    const rounded = vi.spyOn(Decimal.prototype, 'toFixed');
    try {
      expect([usd('0.0398511'), usd('-1.2e-7'), pct('66.666666666666666667'), pct('-0.05')]).toEqual(['0.0399', '-0.0000', '66.7%', '-0.1%']);
      expect(rounded).not.toHaveBeenCalled();
    } finally {
      rounded.mockRestore();
    }
  });

  it('percent, rate and null', () => {
    expect(pct('66.6666')).toBe('66.7%');
    expect(pct(null)).toBe('n/a');
    expect(rate(0.2)).toBe('20.0%');
    expect(rate(null)).toBe('n/a');
  });

  it('quality flags NOISY and check cells count only reps that ran a check', () => {
    expect(qualityCell(0.5, 0.2, true)).toBe('0.500±0.200 NOISY');
    expect(qualityCell(null, null, false)).toBe('n/a');
    const rep = (passed: boolean | null) => ({ check: passed === null ? null : { passed } }) as unknown as Rep;
    expect(checkCell([rep(true), rep(false), rep(null)])).toBe('1/2');
    expect(checkCell([rep(null)])).toBe('-');
  });
});
