import { createHash } from 'node:crypto';

/** A deterministic stream of pseudo-random numbers. */
export interface Prng {
  /** Next unsigned 32-bit integer. */
  nextUint32(): number;
  /** Next float, uniform in [0, 1), with 32 bits of resolution. */
  next(): number;
}

/** The tuple that seeds one (turn, model) decision of the simulated provider (spec §3). */
export interface PrngTuple {
  seed: number;
  workload: string;
  pass: string;
  rep: number;
  turn: number;
  model: string;
}

/**
 * sfc32 (Chris Doty-Humphrey's Small Fast Chaotic PRNG, from PractRand): 128-bit state, passes
 * PractRand/BigCrush, and needs only 32-bit integer ops, so it is fast and exact in JavaScript.
 */
export function createSfc32(a: number, b: number, c: number, d: number): Prng {
  let s0 = a | 0;
  let s1 = b | 0;
  let s2 = c | 0;
  let counter = d | 0;
  const nextUint32 = (): number => {
    const t = (((s0 + s1) | 0) + counter) | 0;
    counter = (counter + 1) | 0;
    s0 = s1 ^ (s1 >>> 9);
    s1 = (s2 + (s2 << 3)) | 0;
    s2 = (s2 << 21) | (s2 >>> 11);
    s2 = (s2 + t) | 0;
    return t >>> 0;
  };
  // Mixing rounds as in the reference seeding, so similar seeds diverge at once.
  for (let i = 0; i < 12; i++) nextUint32();
  return { nextUint32, next: () => nextUint32() / 4294967296 };
}

/** An sfc32 stream seeded from the SHA-256 of arbitrary parts (serialized as a JSON array, so unambiguous). */
export function prngFromParts(parts: readonly (string | number)[]): Prng {
  const h = createHash('sha256').update(JSON.stringify(parts)).digest();
  return createSfc32(h.readUInt32LE(0), h.readUInt32LE(4), h.readUInt32LE(8), h.readUInt32LE(12));
}

/** The stream for one (seed, workload, pass, rep, turn, model): same flags, same run. */
export function prngFor(t: PrngTuple): Prng {
  return prngFromParts([t.seed, t.workload, t.pass, t.rep, t.turn, t.model]);
}
