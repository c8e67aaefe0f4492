// Slot-addressed embedding rows for the in-memory feature index: row s is fingerprint slot s's vector,
// so one pass of dot products lines up with the structural scan without any id lookups.
import { createSimdDots, dotsJs, type SimdDots } from './simd-dots.ts';
import { growChunks } from './memory-chunks.ts';

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
  /** Makes room for `capacity` slots: the rows grow by what is asked (plus an eighth), over as many memories as needed. */
  reserve(capacity: number): void;
  /** Slots per WebAssembly memory (at most what one 4 GiB memory addresses); more go to the next memory. */
  readonly rowsPerMemory: number;
  /** Bytes held for the rows (kernel memories or arrays, and the presence flags). */
  capacityBytes(): number;
  /**
   * Dot product of `q` (length `dim`) with rows 0..slots-1, rounded to float32; a slot without a vector
   * scores garbage, so read it only where `has`. The result is a view that the next call overwrites.
   */
  dots(q: Float32Array, slots: number): Float32Array;
}

export interface EmbeddingRowsOptions {
  /** Largest float32 matrix of one WebAssembly memory, in bytes (default 1 GiB); more rows go to another memory. */
  chunkBytes?: number;
}

const PAGE = 65_536;
/** Pages of one WebAssembly memory (4 GiB). */
const MAX_PAGES = 65_536;
/** Growth beyond what is asked, so appends rarely grow; a memory grows in place, without a copy. */
const HEADROOM = 1 / 8;
const DEFAULT_CHUNK_BYTES = 2 ** 30;

/** One memory's rows: the matrix from byte 0, then the query (float64) and the results (float32). */
interface Chunk {
  simd: SimdDots | null;
  capacity: number;
  data: Float32Array;
  out: Float32Array;
  queryOffset: number;
  outOffset: number;
}

/** Creates empty rows of `dim` floats (dim ≥ 1). */
export function createEmbeddingRows(dim: number, initialCapacity = 64, options: EmbeddingRowsOptions = {}): EmbeddingRows {
  if (!Number.isInteger(dim) || dim < 1) throw new RangeError(`embedding dim must be a whole number >= 1, got ${dim}`);
  // The SIMD kernel needs whole 4-float steps; other dims (and runtimes without SIMD) use the JS loop.
  const useSimd = dim % 4 === 0;
  // The matrix, the float64 query and a float32 result per row must fit in one memory.
  const perMemory = Math.floor((MAX_PAGES * PAGE - dim * 8) / (dim * 4 + 4));
  const chunkBytes = options.chunkBytes ?? DEFAULT_CHUNK_BYTES;
  if (!(chunkBytes >= dim * 4)) throw new RangeError(`chunkBytes must hold one row (${dim * 4} bytes), got ${chunkBytes}`);
  const rowsPerMemory = Math.min(perMemory, Math.floor(chunkBytes / (dim * 4)));
  const present: { flags: Uint8Array } = { flags: new Uint8Array(0) };
  const chunks: Chunk[] = [];
  let capacity = 0;
  let count = 0;
  // Results of every memory side by side, for queries that span more than one.
  let joined = new Float32Array(0);

  function sizeChunk(c: Chunk, rows: number): void {
    const matrixBytes = rows * dim * 4;
    if (c.simd) {
      const need = matrixBytes + dim * 8 + rows * 4;
      const have = c.simd.memory.buffer.byteLength;
      if (need > have) c.simd.memory.grow(Math.ceil((need - have) / PAGE));
      // Growing keeps the matrix at byte 0 in place; only the views are rebuilt.
      c.data = new Float32Array(c.simd.memory.buffer, 0, rows * dim);
      c.queryOffset = matrixBytes;
      c.outOffset = matrixBytes + dim * 8;
      c.out = new Float32Array(c.simd.memory.buffer, c.outOffset, rows);
    } else {
      const grown = new Float32Array(rows * dim);
      grown.set(c.data.subarray(0, Math.min(c.data.length, grown.length)));
      c.data = grown;
      c.out = new Float32Array(rows);
    }
    c.capacity = rows;
  }

  function grow(cap: number): void {
    growChunks(chunks, cap, rowsPerMemory, () => ({ simd: useSimd ? createSimdDots(1) : null, capacity: 0, data: new Float32Array(0), out: new Float32Array(0), queryOffset: 0, outOffset: 0 }), sizeChunk);
    const flags = new Uint8Array(cap);
    flags.set(present.flags);
    present.flags = flags;
    capacity = cap;
  }
  grow(Math.max(1, initialCapacity));

  /** The memory holding `slot` and the slot's first float there. */
  const at = (slot: number): { c: Chunk; off: number } => ({ c: chunks[Math.floor(slot / rowsPerMemory)]!, off: (slot % rowsPerMemory) * dim });

  /** Scores rows 0..rows-1 of one memory into its `out`. */
  function scoreChunk(c: Chunk, q: Float32Array, rows: number): void {
    if (c.simd) {
      // Widening to float64 is exact; the kernel multiplies in float64 as the JS loop does.
      new Float64Array(c.simd.memory.buffer, c.queryOffset, dim).set(q);
      c.simd.dots(0, c.queryOffset, c.outOffset, rows, dim);
    } else dotsJs(c.data, dim, rows, q, c.out);
  }

  return {
    dim,
    get count() {
      return count;
    },
    has: (slot) => present.flags[slot] === 1,
    set(slot, v) {
      if (v.length !== dim) throw new RangeError(`vector dim ${v.length} != ${dim}`);
      if (slot >= capacity) this.reserve(slot + 1);
      const { c, off } = at(slot);
      c.data.set(v, off);
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
        const a = at(from);
        const b = at(to);
        if (a.c === b.c) a.c.data.copyWithin(b.off, a.off, a.off + dim);
        else b.c.data.set(a.c.data.subarray(a.off, a.off + dim), b.off);
        present.flags[to] = 1;
        present.flags[from] = 0;
      }
    },
    get(slot) {
      if (present.flags[slot] !== 1) return null;
      const { c, off } = at(slot);
      return c.data.slice(off, off + dim);
    },
    rowsPerMemory,
    capacityBytes() {
      let bytes = present.flags.byteLength + joined.byteLength;
      for (const c of chunks) bytes += c.simd ? c.simd.memory.buffer.byteLength : c.data.byteLength + c.out.byteLength;
      return bytes;
    },
    reserve(cap) {
      if (cap <= capacity) return;
      if (!Number.isSafeInteger(cap)) throw new RangeError(`capacity must be a whole number, got ${cap}`);
      grow(Math.max(cap, Math.ceil(capacity * (1 + HEADROOM))));
    },
    dots(q, slots) {
      if (q.length !== dim) throw new RangeError(`query dim ${q.length} != ${dim}`);
      const n = Math.min(slots, capacity);
      // One memory (every index under rowsPerMemory rows): its results are the answer, no copy.
      if (n <= rowsPerMemory) {
        scoreChunk(chunks[0]!, q, n);
        return chunks[0]!.out.subarray(0, n);
      }
      if (joined.length < n) joined = new Float32Array(capacity);
      for (let i = 0, base = 0; base < n; i++, base += rowsPerMemory) {
        const c = chunks[i]!;
        const rows = Math.min(n - base, rowsPerMemory);
        scoreChunk(c, q, rows);
        joined.set(c.out.subarray(0, rows), base);
      }
      return joined.subarray(0, n);
    },
  };
}
