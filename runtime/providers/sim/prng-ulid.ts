import type { Prng } from './prng.ts';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/**
 * A syntactically valid ULID (26 Crockford base-32 chars, 128 bits) drawn from a PRNG instead of
 * the clock, so simulated ids are byte-identical run to run and so are their token counts.
 */
export function ulidFromPrng(prng: Prng): string {
  // The first char carries only 3 bits: 3 + 25 * 5 = 128 bits, the ULID maximum.
  let out = CROCKFORD[prng.nextUint32() & 7]!;
  for (let i = 1; i < 26; i++) out += CROCKFORD[prng.nextUint32() & 31]!;
  return out;
}
