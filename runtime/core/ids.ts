import { randomFillSync } from 'node:crypto';

/** Produces ULIDs that sort strictly increasing within this process, even within one millisecond. */
export type IdFactory = (prefix?: string) => string;

/** Crockford's base32, the ULID alphabet (no I, L, O, U). */
const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const TIME_CHARS = 10;
const RANDOM_CHARS = 16;
/** 2^48 − 1: the largest millisecond time a ULID encodes. */
const TIME_MAX = 281_474_976_710_655;
/** Random bytes drawn per refill: one system call per 256 fresh ULIDs instead of one per character. */
const POOL_BYTES = 4096;

/** Fills `buf` with cryptographically strong random bytes (replaceable in tests). */
export type RandomFill = (buf: Uint8Array) => void;

/**
 * Creates a monotonic ULID generator; `prefix` yields ids such as `tu_01J...`.
 * Each id is 10 characters of millisecond time and 16 of randomness (Crockford base32). A new
 * millisecond draws 80 fresh random bits from a pooled buffer (one `randomFillSync` per 4 KiB, each
 * byte's low 5 bits one character: 256 is a multiple of 32, so every character is uniform); within the
 * same millisecond, or when the clock steps back, the previous id's random part is incremented by one,
 * so ids from one factory always sort strictly increasing. A clock reading of 0 or NaN means now.
 */
export function createIdFactory(now: () => number = Date.now, fill: RandomFill = randomFillSync): IdFactory {
  const pool = new Uint8Array(POOL_BYTES);
  let at = POOL_BYTES;
  let lastTime = -1;
  let timePart = '';
  const digits = new Uint8Array(RANDOM_CHARS);
  let randomPart = '';
  /** Re-encodes the random part from digit `from` on (an increment changes only a short tail). */
  const encodeFrom = (from: number): void => {
    let s = randomPart.slice(0, from);
    for (let i = from; i < RANDOM_CHARS; i++) s += ALPHABET[digits[i]!];
    randomPart = s;
  };
  return (prefix?: string) => {
    const read = now();
    const t = !read || Number.isNaN(read) ? Date.now() : read;
    if (t > lastTime) {
      if (!Number.isInteger(t) || t < 0 || t > TIME_MAX) throw new RangeError(`ULID time must be an integer in [0, ${TIME_MAX}] ms, got ${t}`);
      lastTime = t;
      let x = t;
      timePart = '';
      for (let i = 0; i < TIME_CHARS; i++) {
        timePart = ALPHABET[x % 32]! + timePart;
        x = Math.floor(x / 32);
      }
      if (at + RANDOM_CHARS > POOL_BYTES) {
        fill(pool);
        at = 0;
      }
      for (let i = 0; i < RANDOM_CHARS; i++) digits[i] = pool[at++]! & 31;
      encodeFrom(0);
    } else {
      // Same millisecond (or an earlier clock reading): the next random value, carrying leftwards.
      let i = RANDOM_CHARS - 1;
      while (i >= 0 && digits[i] === 31) digits[i--] = 0;
      if (i < 0) throw new RangeError('ULID random part overflowed within one millisecond (2^80 ids)');
      digits[i]! += 1;
      encodeFrom(i);
    }
    const id = timePart + randomPart;
    return prefix ? `${prefix}_${id}` : id;
  };
}

/** The process-wide id generator; components take an IdFactory so tests can pass their own. */
export const newId: IdFactory = createIdFactory();
