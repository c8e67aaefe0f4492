import fc from 'fast-check';
import { decodeTime, isValid } from 'ulid';
import { describe, expect, it } from 'vitest';
import { createIdFactory } from './ids.ts';

const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/;

/** A clock that answers the given readings in turn. */
const clockOf = (readings: readonly number[]) => {
  let i = 0;
  return () => readings[Math.min(i++, readings.length - 1)]!;
};

describe('createIdFactory (pooled monotonic ULIDs)', () => {
  it('yields valid ULIDs that sort strictly increasing and encode the latest time seen, whatever the clock does', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 2 ** 48 - 1 }), { minLength: 1, maxLength: 300 }), (readings) => {
        const next = createIdFactory(clockOf(readings));
        let prev = '';
        let latest = 0;
        for (const r of readings) {
          const id = next();
          latest = Math.max(latest, r);
          expect(id).toMatch(ULID);
          expect(isValid(id)).toBe(true);
          expect(decodeTime(id)).toBe(latest);
          expect(id > prev).toBe(true);
          prev = id;
        }
      }),
    );
  });

  it('within one millisecond the random part counts up by one, carrying over the last character', () => {
    // A random source of all 31s: the first id's random part is ZZZ…Z except what the test sets.
    const fill = (buf: Uint8Array) => {
      buf.fill(31);
      buf[14] = 3;
    };
    const next = createIdFactory(() => 1_767_225_600_000, fill);
    const a = next();
    const b = next();
    const c = next();
    expect(a.slice(10)).toBe('ZZZZZZZZZZZZZZ3Z');
    expect(b.slice(10)).toBe('ZZZZZZZZZZZZZZ40');
    expect(c.slice(10)).toBe('ZZZZZZZZZZZZZZ41');
    expect(a.slice(0, 10)).toBe(b.slice(0, 10));
  });

  it('refuses to wrap: 2^80 ids in one millisecond is an error, never a smaller id', () => {
    const next = createIdFactory(() => 5, (buf) => buf.fill(31));
    expect(next()).toBe('0000000005ZZZZZZZZZZZZZZZZ');
    expect(() => next()).toThrow(/overflowed/);
  });

  it('draws randomness in bulk: one fill per 256 fresh milliseconds, each character uniform over the alphabet', () => {
    let fills = 0;
    let t = 1_000;
    const next = createIdFactory(
      () => t++,
      (buf) => {
        fills++;
        for (let i = 0; i < buf.length; i++) buf[i] = (i * 7 + fills) & 255;
      },
    );
    const ids = Array.from({ length: 1024 }, () => next());
    expect(fills).toBe(4);
    expect(new Set(ids.map((id) => id.slice(10))).size).toBeGreaterThan(1);
    // Real randomness: every alphabet character turns up in each random position over many ids.
    const real = createIdFactory(() => t++);
    const seen = Array.from({ length: 16 }, () => new Set<string>());
    for (let i = 0; i < 4000; i++) [...real().slice(10)].forEach((ch, j) => seen[j]!.add(ch));
    for (const s of seen) expect(s.size).toBe(32);
  });

  it('prefixes ids and treats a zero clock as now', () => {
    const before = Date.now();
    const id = createIdFactory(() => 0)('tu');
    expect(id).toMatch(/^tu_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(decodeTime(id.slice(3))).toBeGreaterThanOrEqual(before);
  });

  it('rejects a time a ULID cannot encode', () => {
    expect(() => createIdFactory(() => 2 ** 48)()).toThrow(RangeError);
    expect(() => createIdFactory(() => 1.5)()).toThrow(RangeError);
  });
});
