// Slot-addressed embedding rows for the in-memory feature index: row s is fingerprint slot s's vector,
// so one pass of dot products lines up with the structural scan without any id lookups.
import { createSimdDots, dotsJs, type SimdDots } from './simd-dots.ts';

/** A growable, slot-aligned float32 matrix with a presence flag per slot. */
export interface EmbeddingRows {
  readonly dim: number;
  /** Slots holding a vector. */
  readonly count: number;
  has(slot: number): boolean;
  /** Copies `v` into `slot`; its length must be `dim`. */
  set(slot: number, v: Float32Array): void;
  clear(slot: number): void;
  /** Moves slot `from`'s row (or its absence) to `to` and clears `from` (swap-remove). */
  move(from: number, to: number): void;
  /** A copy of the slot's vector, or null. */
  get(slot: number): Float32Array | null;
  /** Makes room for `capacity` slots (the kernel's one memory holds at most `maxRows`). */
  reserve(capacity: number): void;
  /** Most slots these rows can hold: one WebAssembly memory addresses 4 GiB. */
  readonly maxRows: number;
  /** Bytes held for the rows (kernel memory or arrays, and the presence flags). */
  capacityBytes(): number;
  /**
   * Dot product of `q` (length `dim`) with rows 0..slots-1, rounded to float32; a slot without a vector
   * scores garbage, so read it only where `has`. The result is a view that the next call overwrites.
   */
  dots(q: Float32Array, slots: number): Float32Array;
}

const PAGE = 65_536;
/** Pages of one WebAssembly memory (4 GiB). */
const MAX_PAGES = 65_536;
/** Growth beyond what is asked, so appends rarely grow; the memory grows in place, without a copy. */
const HEADROOM = 1 / 8;

/** Creates empty rows of `dim` floats (dim ≥ 1). */
export function createEmbeddingRows(dim: number, initialCapacity = 64): EmbeddingRows {
  if (!Number.isInteger(dim) || dim < 1) throw new RangeError(`embedding dim must be a whole number >= 1, got ${dim}`);
  const present: { flags: Uint8Array } = { flags: new Uint8Array(initialCapacity) };
  let capacity = initialCapacity;
  let count = 0;
  // The SIMD kernel needs whole 4-float steps; other dims (and runtimes without SIMD) use the JS loop.
  const simd: SimdDots | null = dim % 4 === 0 ? createSimdDots(1) : null;
  // Layout in kernel memory: the matrix from byte 0, then the query (float64) and the results (float32).
  let data = new Float32Array(0);
  let out = new Float32Array(0);
  let outOffset = 0;
  let queryOffset = 0;
  // The matrix, the float64 query and a float32 result per row must fit in one memory.
  const maxRows = simd ? Math.floor((MAX_PAGES * PAGE - dim * 8) / (dim * 4 + 4)) : Math.floor(2 ** 32 / (dim * 4));

  function layout(cap: number): void {
    const matrixBytes = cap * dim * 4;
    if (simd) {
      const need = matrixBytes + dim * 8 + cap * 4;
      const have = simd.memory.buffer.byteLength;
      if (need > have) simd.memory.grow(Math.ceil((need - have) / PAGE));
      // Growing keeps the matrix at byte 0 in place; only the views are rebuilt.
      data = new Float32Array(simd.memory.buffer, 0, cap * dim);
      queryOffset = matrixBytes;
      outOffset = matrixBytes + dim * 8;
      out = new Float32Array(simd.memory.buffer, outOffset, cap);
    } else {
      const grown = new Float32Array(cap * dim);
      grown.set(data.subarray(0, Math.min(data.length, grown.length)));
      data = grown;
      out = new Float32Array(cap);
    }
  }
  layout(capacity);

  return {
    dim,
    get count() {
      return count;
    },
    has: (slot) => present.flags[slot] === 1,
    set(slot, v) {
      if (v.length !== dim) throw new RangeError(`vector dim ${v.length} != ${dim}`);
      if (slot >= capacity) this.reserve(slot + 1);
      data.set(v, slot * dim);
      if (present.flags[slot] !== 1) count++;
      present.flags[slot] = 1;
    },
    clear(slot) {
      if (present.flags[slot] === 1) count--;
      present.flags[slot] = 0;
    },
    move(from, to) {
      if (from === to) return;
      this.clear(to);
      if (present.flags[from] === 1) {
        data.copyWithin(to * dim, from * dim, (from + 1) * dim);
        present.flags[to] = 1;
        present.flags[from] = 0;
      }
    },
    get: (slot) => (present.flags[slot] === 1 ? data.slice(slot * dim, (slot + 1) * dim) : null),
    maxRows,
    capacityBytes: () => (simd ? simd.memory.buffer.byteLength : data.byteLength + out.byteLength) + present.flags.byteLength,
    reserve(cap) {
      if (cap <= capacity) return;
      if (cap > maxRows) throw new RangeError(`embedding rows of ${dim} floats hold at most ${maxRows} slots in one WebAssembly memory (4 GiB), asked for ${cap}: keep larger indexes in InMemoryVectorDatabase, which keeps int8 copies over several memories`);
      const next = Math.min(maxRows, Math.max(cap, Math.ceil(capacity * (1 + HEADROOM))));
      const flags = new Uint8Array(next);
      flags.set(present.flags);
      present.flags = flags;
      capacity = next;
      layout(capacity);
    },
    dots(q, slots) {
      if (q.length !== dim) throw new RangeError(`query dim ${q.length} != ${dim}`);
      const n = Math.min(slots, capacity);
      if (simd) {
        // Widening to float64 is exact; the kernel multiplies in float64 as the JS loop does.
        new Float64Array(simd.memory.buffer, queryOffset, dim).set(q);
        simd.dots(0, queryOffset, outOffset, n, dim);
      } else dotsJs(data, dim, n, q, out);
      return out.subarray(0, n);
    },
  };
}
