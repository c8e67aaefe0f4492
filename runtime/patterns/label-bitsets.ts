// One set-valued feature (intent tags, extensions, ...) of every indexed fingerprint as bitsets over
// interned labels: Jaccard becomes popcounts of ANDed words.
import { jaccardFromCounts } from './similarity.ts';

/** Set bits of a 32-bit word. */
export function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return Math.imul((x + (x >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24;
}

/** One set-valued feature of every fingerprint: `stride` 32-bit words per slot plus the set size. */
export class SetColumn {
  private readonly vocab = new Map<string, number>();
  stride = 1;
  words: Uint32Array;
  sizes: Uint16Array;

  constructor(private capacity: number) {
    this.words = new Uint32Array(capacity);
    this.sizes = new Uint16Array(capacity);
  }

  /** Makes room for `capacity` fingerprints. */
  grow(capacity: number): void {
    const words = new Uint32Array(capacity * this.stride);
    words.set(this.words);
    const sizes = new Uint16Array(capacity);
    sizes.set(this.sizes);
    this.words = words;
    this.sizes = sizes;
    this.capacity = capacity;
  }

  /** Re-lays the words out when the vocabulary outgrows a slot. */
  private widen(stride: number, used: number): void {
    const words = new Uint32Array(this.capacity * stride);
    for (let s = 0; s < used; s++) words.set(this.words.subarray(s * this.stride, (s + 1) * this.stride), s * stride);
    this.words = words;
    this.stride = stride;
  }

  /** Stores a fingerprint's labels in `slot`; `used` slots hold data (kept when the layout widens). */
  write(slot: number, labels: readonly string[], used: number): void {
    const ids = labels.map((l) => {
      let id = this.vocab.get(l);
      if (id === undefined) this.vocab.set(l, (id = this.vocab.size));
      return id;
    });
    const needed = Math.max(1, Math.ceil(this.vocab.size / 32));
    if (needed > this.stride) this.widen(needed, used);
    const base = slot * this.stride;
    this.words.fill(0, base, base + this.stride);
    for (const id of ids) this.words[base + (id >>> 5)]! |= 1 << (id & 31);
    this.sizes[slot] = new Set(labels).size;
  }

  /** Copies slot `from` over slot `to`. */
  move(from: number, to: number): void {
    this.words.copyWithin(to * this.stride, from * this.stride, (from + 1) * this.stride);
    this.sizes[to] = this.sizes[from]!;
  }

  /** A query's bitset over this vocabulary; labels never stored still count toward its size. */
  encode(labels: readonly string[]): { bits: Uint32Array; size: number } {
    const bits = new Uint32Array(this.stride);
    for (const l of labels) {
      const id = this.vocab.get(l);
      if (id !== undefined) bits[id >>> 5]! |= 1 << (id & 31);
    }
    return { bits, size: new Set(labels).size };
  }

  /** Jaccard of slot's labels and an encoded query. */
  jaccard(slot: number, q: { bits: Uint32Array; size: number }): number {
    const base = slot * this.stride;
    let inter = 0;
    for (let w = 0; w < q.bits.length; w++) inter += popcount(q.bits[w]! & this.words[base + w]!);
    return jaccardFromCounts(inter, q.size, this.sizes[slot]!);
  }
}
