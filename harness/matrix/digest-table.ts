// A set of 64-bit digests, each with two numbers, in typed arrays: 21 bytes a slot and at least 4/3 slots an
// entry (a million entries take 2^21 slots, 44 MB), whatever the text each stands for, where a Map of
// strings and objects cost about 150 bytes an entry (a million-row import's duplicate check alone was 150 MB).

/**
 * Digests (as two 32-bit halves) to a pair of numbers, by open addressing; grows at three-quarters full.
 * The first number is any integer up to 2^53, the second a 32-bit unsigned one.
 */
export class DigestTable {
  private keys: Uint32Array;
  private a: Float64Array;
  private b: Uint32Array;
  private used: Uint8Array;
  private count = 0;

  constructor(capacity = 1024) {
    const size = 2 ** Math.ceil(Math.log2(Math.max(16, (capacity * 4) / 3)));
    this.keys = new Uint32Array(size * 2);
    this.a = new Float64Array(size);
    this.b = new Uint32Array(size);
    this.used = new Uint8Array(size);
  }

  /** Entries held. */
  get size(): number {
    return this.count;
  }

  private slot(hi: number, lo: number): number {
    const mask = this.used.length - 1;
    let i = (lo ^ Math.imul(hi, 0x9e3779b1)) & mask;
    while (this.used[i] && (this.keys[2 * i] !== hi || this.keys[2 * i + 1] !== lo)) i = (i + 1) & mask;
    return i;
  }

  /** The pair held for a digest, or null. */
  get(hi: number, lo: number): [number, number] | null {
    const i = this.slot(hi >>> 0, lo >>> 0);
    return this.used[i] ? [this.a[i]!, this.b[i]!] : null;
  }

  /** Holds `pair` for a digest (replacing any). */
  set(hi: number, lo: number, pair: readonly [number, number]): void {
    if ((this.count + 1) * 4 > this.used.length * 3) this.grow();
    const i = this.slot(hi >>> 0, lo >>> 0);
    if (!this.used[i]) {
      this.used[i] = 1;
      this.keys[2 * i] = hi >>> 0;
      this.keys[2 * i + 1] = lo >>> 0;
      this.count += 1;
    }
    this.a[i] = pair[0];
    this.b[i] = pair[1];
  }

  private grow(): void {
    const { keys, a, b, used } = this;
    const size = used.length * 2;
    this.keys = new Uint32Array(size * 2);
    this.a = new Float64Array(size);
    this.b = new Uint32Array(size);
    this.used = new Uint8Array(size);
    this.count = 0;
    for (let i = 0; i < used.length; i++) if (used[i]) this.set(keys[2 * i]!, keys[2 * i + 1]!, [a[i]!, b[i]!]);
  }
}

/**
 * A 96-bit digest of a string as three 32-bit words, computed over its UTF-16 code units with no
 * allocation (a crypto hash object and Buffer per row were a large import's garbage). Not
 * cryptographic: it stands for a task id or prompt in a duplicate check, where a collision's only
 * cost is one check missed or one refusal with a wrong line, at odds of about 2^-50 for a million rows.
 */
export function textDigest(text: string): [number, number, number] {
  let a = 0x9e3779b9;
  let b = 0x85ebca6b;
  let c = 0xc2b2ae35 ^ text.length;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    a = Math.imul(a ^ ch, 0x01000193);
    b = Math.imul(b ^ ch, 0x5bd1e995);
    c = Math.imul(c ^ ch, 0x27d4eb2f);
    b ^= b >>> 15;
  }
  // Each lane is mixed with the others so that a difference in one spreads to every word.
  const fmix = (h: number) => {
    h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
    h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
    return (h ^ (h >>> 16)) >>> 0;
  };
  const x = fmix(a ^ Math.imul(c, 0x165667b1));
  const y = fmix(b ^ x);
  const z = fmix(c ^ y);
  return [x, y, z];
}
