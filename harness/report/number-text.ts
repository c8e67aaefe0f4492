import { Decimal } from 'decimal.js';

// Numbers as the reports print them, in one place: money never in exponent form, one minus sign (U+2212)
// for every negative figure, intervals written one way.

/** The minus sign of every printed negative figure (a hyphen-minus reads as a dash and breaks lines). */
export const MINUS = '\u2212';

/** A number's text with its hyphen-minus replaced by the minus sign; `-0.00` (a rounded tiny negative) reads `0.00`. */
export function minusSign(text: string): string {
  if (/^-0(\.0+)?$/.test(text)) return text.slice(1);
  return text.startsWith('-') ? `${MINUS}${text.slice(1)}` : text;
}

/** `x` to `digits` decimals, with the minus sign. */
export function fixedText(x: number, digits: number): string {
  return minusSign(x.toFixed(digits));
}

/** `x` to `digits` decimals with a sign: `+1.5`, `−0.3`, `0.0`. */
export function signedText(x: number, digits: number): string {
  const t = fixedText(x, digits);
  return Number(x.toFixed(digits)) > 0 ? `+${t}` : t;
}

/**
 * Money for people: `$1.44` at a cent or more, else `sig` significant digits written out
 * (`$0.0000144`, never `1.44e-5`); negative amounts with the minus sign (`−$0.0031`).
 */
export function moneyText(amount: Decimal | string | number, sig = 2): string {
  const d = new Decimal(amount);
  if (d.isZero()) return '$0';
  const abs = d.abs();
  // Below a cent: `sig` significant digits, trailing zeros kept (`$0.0010`), in fixed notation.
  const body = abs.gte(0.01) ? abs.toFixed(2) : abs.toFixed(Math.max(0, sig - 1 - abs.toSignificantDigits(sig).e));
  return d.isNegative() ? `${MINUS}$${body}` : `$${body}`;
}

/** Money with an explicit sign, for differences: `+$0.0031`, `−$0.0031`, `$0`. */
export function signedMoneyText(amount: Decimal | string | number, sig = 2): string {
  const d = new Decimal(amount);
  const t = moneyText(d, sig);
  return d.gt(0) ? `+${t}` : t;
}

/** `[lo, hi]`; a folded table cell keeps a bracketed group whole (fit-table.ts). */
export function intervalText(lo: string, hi: string): string {
  return `[${lo}, ${hi}]`;
}

/** An exact amount (Decimal text) as written, never in exponent form, with the minus sign before the `$`. */
export function exactMoneyText(amount: Decimal | string): string {
  const d = new Decimal(amount);
  return d.isNegative() && !d.isZero() ? `${MINUS}$${d.abs().toFixed()}` : `$${d.abs().toFixed()}`;
}
