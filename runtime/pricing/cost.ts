import { Decimal } from 'decimal.js';
import type { Usage } from '../types/response.ts';
import type { ModelRates } from './rates.ts';

const PER_MILLION = new Decimal(1_000_000);

/** A rate as an integer times a power of ten (rate = m × 10^e, e ≤ 0), or null for a negative or non-finite one. */
type Scaled = { m: bigint; e: number } | null;

/** Each rate's scaled form, made once per Decimal (a price table's rates live as long as the table). */
const scaledRates = new WeakMap<Decimal, Scaled>();

function scaledOf(rate: Decimal): Scaled {
  let s = scaledRates.get(rate);
  if (s === undefined) {
    if (rate.isNegative() || !rate.isFinite()) s = null;
    else {
      const text = rate.toFixed();
      const dot = text.indexOf('.');
      s = dot < 0 ? { m: BigInt(text), e: 0 } : { m: BigInt(text.slice(0, dot) + text.slice(dot + 1)), e: dot + 1 - text.length };
    }
    scaledRates.set(rate, s);
  }
  return s;
}

/** The Decimal chain itself: each product and sum rounded to Decimal's precision, as every cost was computed. */
function costByChain(usage: Usage, rates: ModelRates): Decimal {
  return rates.input
    .times(usage.input_tokens)
    .plus(rates.cache_read.times(usage.cached_input_tokens))
    .plus(rates.cache_write.times(usage.cache_creation_input_tokens))
    .plus(rates.output.times(usage.output_tokens))
    .dividedBy(PER_MILLION);
}

/**
 * USD cost of one usage at the given rates (per million tokens), exact:
 * uncached input at `input`, cache reads at `cache_read`, cache writes at `cache_write`, output at `output`.
 *
 * Summed as integers (BigInt) at the rates' finest power of ten, one Decimal made at the end: a report prices
 * a few thousand usages and the chain's eight Decimal operations each were most of that. With non-negative
 * terms every product and partial sum of the chain is at most the total, so when the total has no more digits
 * than Decimal's precision the chain rounded nothing and the value is the same; otherwise (and for a negative
 * rate or a token count that is not a whole number) the chain itself is used.
 */
export function costOf(usage: Usage, rates: ModelRates): Decimal {
  const terms: [Scaled, number][] = [
    [scaledOf(rates.input), usage.input_tokens],
    [scaledOf(rates.cache_read), usage.cached_input_tokens],
    [scaledOf(rates.cache_write), usage.cache_creation_input_tokens],
    [scaledOf(rates.output), usage.output_tokens],
  ];
  let e = 0;
  for (const [s, tokens] of terms) {
    if (s === null || !Number.isSafeInteger(tokens) || tokens < 0) return costByChain(usage, rates);
    e = Math.min(e, s.e);
  }
  let total = 0n;
  for (const [s, tokens] of terms) total += s!.m * BigInt(tokens) * 10n ** BigInt(s!.e - e);
  // The rates' own Decimal class (its precision), as the chain's operations use.
  const D = rates.input.constructor as typeof Decimal;
  const digits = total.toString();
  if (digits.length > D.precision) return costByChain(usage, rates);
  return new D(`${digits}e${e - 6}`);
}

/** The finest power of ten of `rates` (the least e of rate = m × 10^e), or null when a rate is negative or not finite. */
export function ratesExponent(rates: ModelRates): number | null {
  let e = 0;
  for (const rate of [rates.input, rates.cache_read, rates.cache_write, rates.output]) {
    const s = scaledOf(rate);
    if (s === null) return null;
    e = Math.min(e, s.e);
  }
  return e;
}

/**
 * costOf as a whole number of 10^(e − 6) USD: the exact cost at a power of ten `e` at least as fine as every
 * rate's (ratesExponent), so that costs of several models and usages add up as integers. Null when a rate is
 * finer than 10^e, negative or not finite, or a token count is not a non-negative whole number.
 */
export function scaledCostOf(usage: Usage, rates: ModelRates, e: number): bigint | null {
  const input = scaledOf(rates.input);
  const cacheRead = scaledOf(rates.cache_read);
  const cacheWrite = scaledOf(rates.cache_write);
  const output = scaledOf(rates.output);
  if (input === null || cacheRead === null || cacheWrite === null || output === null) return null;
  const a = scaledTerm(input, usage.input_tokens, e);
  const b = scaledTerm(cacheRead, usage.cached_input_tokens, e);
  const c = scaledTerm(cacheWrite, usage.cache_creation_input_tokens, e);
  const d = scaledTerm(output, usage.output_tokens, e);
  return a === null || b === null || c === null || d === null ? null : a + b + c + d;
}

/** One rate × tokens as a whole number of 10^(e − 6) USD; null when the rate is finer than 10^e or the count is not a whole number ≥ 0. */
function scaledTerm(s: { m: bigint; e: number }, tokens: number, e: number): bigint | null {
  return s.e < e || !Number.isSafeInteger(tokens) || tokens < 0 ? null : s.m * BigInt(tokens) * 10n ** BigInt(s.e - e);
}
