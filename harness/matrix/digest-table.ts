// A set of 64-bit digests, each with two numbers, in typed arrays: one entry costs 16 bytes of keys and
// values at most twice over, whatever the text it stands for, where a Map of strings and objects cost
// about 150 bytes an entry (a million-row import's duplicate check alone was 150 MB).

/** Digests (as two 32-bit halves) to a pair of numbers, by open addressing; grows at half full. */
export class DigestTable {
  private keys: Uint32Array;
  private a: Float64Array;
  private b: Float64Array;
  private used: Uint8Array;
  private count = 0;

  constructor(capacity = 1024) {
    const size = 2 ** Math.ceil(Math.log2(Math.max(16, capacity * 2)));
    this.keys = new Uint32Array(size * 2);
    this.a = new Float64Array(size);
    this.b = new Float64Array(size);
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
    if ((this.count + 1) * 2 > this.used.length) this.grow();
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
    this.b = new Float64Array(size);
    this.used = new Uint8Array(size);
    this.count = 0;
    for (let i = 0; i < used.length; i++) if (used[i]) this.set(keys[2 * i]!, keys[2 * i + 1]!, [a[i]!, b[i]!]);
  }
}
