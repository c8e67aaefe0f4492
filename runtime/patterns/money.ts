import { Decimal } from 'decimal.js';

const MICROS_PER_USD = 1_000_000;

// A matrix run records each task's cost (one Decimal object) in every fold's store: its conversions are
// kept per object (a decimal.js value never changes) rather than redone per record.
const micros = new WeakMap<Decimal, bigint>();
const floats = new WeakMap<Decimal, number>();

/** USD to whole micro-dollars (§7.1 storage unit), rounding half-even below a micro-dollar. */
export function usdToMicros(usd: Decimal): bigint {
  let m = micros.get(usd);
  if (m === undefined) micros.set(usd, (m = BigInt(usd.times(MICROS_PER_USD).toDecimalPlaces(0, Decimal.ROUND_HALF_EVEN).toFixed(0))));
  return m;
}

/** `usd.toNumber()`, kept per object as usdToMicros is. */
export function usdToNumber(usd: Decimal): number {
  let n = floats.get(usd);
  if (n === undefined) floats.set(usd, (n = usd.toNumber()));
  return n;
}

/** Mean USD of `samples` contributions summing to `micros`. */
export function meanUsdFromMicros(micros: bigint, samples: number): Decimal {
  if (samples <= 0) return new Decimal(0);
  return new Decimal(micros.toString()).div(samples).div(MICROS_PER_USD);
}

/** Decimal text for payloads and reports: plain notation (never `1e-7`), as the catalog's money pattern needs. */
export function usdText(usd: Decimal): string {
  return usd.toFixed();
}
