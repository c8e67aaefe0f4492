// Int8 copies of float32 rows that answer, for a query q, an interval holding each row's exact score
// (the float32 dot product `dotsJs` computes), so an exact top-k search can scan a quarter of the bytes
// and re-score only the rows whose interval can still reach the top.
//
// Why the interval is sound. A row v is stored as ṽ = s·v̂ (v̂ int8, s = max|v|/127 rounded to float32),
// the query as q̃ = t·q̂ (q̂ int16). The kernel's integer sum gives dot(q̃, ṽ) = s·t·Σ q̂v̂ exactly, and
//   dot(q, v) − dot(q̃, ṽ) = dot(q, v − ṽ) + dot(q − q̃, ṽ),
// so by Cauchy–Schwarz |dot(q, v) − dot(q̃, ṽ)| ≤ ‖q‖·‖v − ṽ‖ + ‖q − q̃‖·‖ṽ‖. The exact score differs from
// the real dot(q, v) by float64 summation and the final float32 rounding: relatively less than 2^-23 of
// ‖q‖·‖v‖ (and ‖v‖ ≤ ‖ṽ‖ + ‖v − ṽ‖), plus at most 2^-150 where the result is subnormal. The bound adds
// 2^-20 of ‖q‖·(‖ṽ‖ + ‖v − ṽ‖) and 2^-126 to cover those and the float64 rounding of the bound itself.
// The per-row error and norm are kept as float32 rounded up, so the stored bound only ever widens.
//
// Memory. Rows live in WebAssembly memories of at most `chunkBytes` of int8 rows each (1 GiB by default,
// under the 4 GiB one memory can address); a memory grows in place by what the next rows need plus an
// eighth, and once full the next rows go to a new memory. Rows are stored in tiles of four (the kernel's
// layout, simd-int8-dots.ts): the four int8 rows (dim rounded up to 32 bytes) interleaved, then their
// scales, errors and norms as float32, so the kernel reads one stream and tests each row's upper bound
// itself: 396 bytes a row at 384 dims.
import {
  createSimdInt8Filter,
  filterInt8Js,
  INT8_STEP,
  INT8_TILE_ROWS,
  int8ComponentOffset,
  int8RowByte,
  int8ScaleIndex,
  int8TileBytes,
  type Int8Threshold,
  type SimdInt8Filter,
} from './simd-int8-dots.ts';
import { growChunks } from './memory-chunks.ts';

/** Rows quantised to int8 with what it takes to bound their error against a query. */
export interface QuantizedRows {
  readonly dim: number;
  /** Slots there is room for without growing. */
  readonly capacity: number;
  /** Quantises `v` (length `dim`, finite) into `slot`. */
  set(slot: number, v: Float32Array): void;
  /** Copies slot `from` over slot `to` (swap-remove). */
  move(from: number, to: number): void;
  /** Makes room for `capacity` slots. */
  reserve(capacity: number): void;
  /**
   * For rows 0..rows-1, `lower[r] ≤ dotsJs(row r, q) ≤ upper[r]`. The arrays are views that the next call
   * overwrites (allocated on first use: `candidates` does not need them).
   */
  bounds(q: Float32Array, rows: number): { lower: Float64Array; upper: Float64Array };
  /**
   * The rows among 0..rows-1 whose interval reaches the k-th largest lower bound, ascending: every other
   * row has at least k rows whose exact score is strictly above its own, so the exact top k (ties
   * included) is among these. All rows when `k ≥ rows` or the interval gives up.
   */
  candidates(q: Float32Array, rows: number, k: number): Int32Array;
  /** Bytes held for the rows (memories and per-row arrays), for memory reports. */
  residentBytes(): number;
}

export interface QuantizedRowsOptions {
  /** `false` forces the JS loop (as without SIMD). */
  simd?: boolean;
  /** Largest int8 matrix of one WebAssembly memory, in bytes (default 1 GiB); more rows spill to another memory. */
  chunkBytes?: number;
}

const PAGE = 65_536;
const ROW_MAX = 127;
/** Relative slack for float rounding (see the header): 2^-20 of ‖q‖·‖v‖ bounds. */
const REL_SLACK = 2 ** -20;
/** Absolute slack: float32's smallest normal, far above the subnormal rounding step. */
const ABS_SLACK = 2 ** -126;
/** Above this ‖q‖·‖v‖ a float32 score may overflow to ±Infinity; the interval then gives up. */
const OVERFLOW_GUARD = 2 ** 120;
const DEFAULT_CHUNK_BYTES = 2 ** 30;
/** A memory grows by what is asked plus this share, so appends rarely grow. */
const HEADROOM = 1 / 8;
/** Rows per kernel call: the running floor is handed to the kernel again between calls. */
const BLOCK_ROWS = 16_384;
/** Rows of the first call, enough to fill the top k's lower bounds so that later calls skip most rows. */
const FIRST_BLOCK_ROWS = 256;
/** `n` rounded up to whole tiles: memories, blocks and calls start on a tile. */
const wholeTiles = (n: number) => Math.ceil(n / INT8_TILE_ROWS) * INT8_TILE_ROWS;

/** `x` rounded up to a float32 (x ≥ 0): the stored bound terms may widen, never narrow. */
function float32Up(x: number): number {
  const f = Math.fround(x);
  if (f >= x) return f;
  const g = Math.fround(x * (1 + 2 ** -22));
  // Below float32's normal range the relative step rounds back to f: step by one subnormal instead.
  return g >= x ? g : f + 2 ** -149;
}

/**
 * One WebAssembly memory's rows: tiles (four int8 rows, then their scales, errors, norms) from byte 0,
 * then the int16 query, then the (row, sum) pairs the kernel writes. Without SIMD the same views over
 * plain arrays.
 */
interface Chunk {
  kernel: SimdInt8Filter | null;
  capacity: number;
  /** The tiles, and the same bytes as float32 for the scales, errors and norms. */
  data: Int8Array;
  meta: Float32Array;
  query: Int16Array;
  out: Int32Array;
  queryOffset: number;
  outOffset: number;
}

/** Creates empty quantised rows of `dim` components. */
export function createQuantizedRows(dim: number, initialCapacity = 64, options: QuantizedRowsOptions = {}): QuantizedRows {
  if (!Number.isInteger(dim) || dim < 1) throw new RangeError(`dim must be a whole number >= 1, got ${dim}`);
  // Zero padding to whole kernel steps adds nothing to any sum.
  const stride = Math.ceil(dim / INT8_STEP) * INT8_STEP;
  const tileBytes = int8TileBytes(stride);
  // Largest query magnitude that keeps Σ |q̂·v̂| ≤ stride·127·qMax inside int32.
  const qMax = Math.min(32_767, Math.floor((2 ** 31 - 1) / (ROW_MAX * stride)));
  if (qMax < 1) throw new RangeError(`dim ${dim} is too large for int32 sums`);
  const chunkBytes = options.chunkBytes ?? DEFAULT_CHUNK_BYTES;
  if (!(chunkBytes >= stride) || chunkBytes > 2 ** 31) throw new RangeError(`chunkBytes must be between one row (${stride} bytes) and 2 GiB, got ${chunkBytes}`);
  // A memory's last tile may be partial; blocks within a memory start on a tile (they are whole tiles long).
  const chunkRows = Math.floor(chunkBytes / stride);
  const useSimd = options.simd !== false;
  const chunks: Chunk[] = [];
  let capacity = 0;
  // Never lowered on delete: only the overflow guard reads it, and a stale larger value is still safe.
  let maxNorm = 0;
  let lower = new Float64Array(0);
  let upper = new Float64Array(0);
  let heap = new Float64Array(16);

  /** Sizes chunk `c` to `rows` rows, a whole number of tiles (growing its memory in place), and rebuilds its views. */
  function sizeChunk(c: Chunk, rows: number): void {
    const bytes = (rows / INT8_TILE_ROWS) * tileBytes;
    // Room for one block's (row, sum) pairs, no more than the rows themselves, so small indexes stay small.
    const pairs = Math.min(rows, BLOCK_ROWS);
    if (c.kernel) {
      const need = bytes + stride * 2 + pairs * 8;
      const have = c.kernel.memory.buffer.byteLength;
      if (need > have) c.kernel.memory.grow(Math.ceil((need - have) / PAGE));
      const buf = c.kernel.memory.buffer;
      c.data = new Int8Array(buf, 0, bytes);
      c.meta = new Float32Array(buf, 0, bytes / 4);
      c.queryOffset = bytes;
      c.query = new Int16Array(buf, bytes, stride);
      c.outOffset = bytes + stride * 2;
      c.out = new Int32Array(buf, c.outOffset, pairs * 2);
    } else {
      const grown = new Int8Array(bytes);
      grown.set(c.data);
      c.data = grown;
      c.meta = new Float32Array(grown.buffer, 0, bytes / 4);
      c.out = new Int32Array(pairs * 2);
    }
    c.capacity = rows;
  }

  function grow(cap: number): void {
    growChunks(
      chunks,
      cap,
      chunkRows,
      () => ({ kernel: useSimd ? createSimdInt8Filter(1) : null, capacity: 0, data: new Int8Array(0), meta: new Float32Array(0), query: new Int16Array(stride), out: new Int32Array(0), queryOffset: 0, outOffset: 0 }),
      (c, rows) => sizeChunk(c, wholeTiles(rows)),
    );
    capacity = cap;
  }
  grow(initialCapacity);

/** Quantises `q` into every chunk's query; null when the interval cannot bound scores this large. */
  function prepareQuery(q: Float32Array): { t: number; qNorm: number; qErr: number } | null {
    if (q.length !== dim) throw new RangeError(`query dim ${q.length} != ${dim}`);
    let m = 0;
    let q2 = 0;
    for (let i = 0; i < dim; i++) {
      m = Math.max(m, Math.abs(q[i]!));
      q2 += q[i]! * q[i]!;
    }
    const qNorm = Math.sqrt(q2);
    if (!(qNorm * maxNorm < OVERFLOW_GUARD)) return null;
    const t = m / qMax;
    const first = chunks[0]!.query;
    let eq2 = 0;
    for (let i = 0; i < dim; i++) {
      const x = t === 0 ? 0 : Math.max(-qMax, Math.min(qMax, Math.round(q[i]! / t)));
      first[i] = x;
      eq2 += (q[i]! - t * x) ** 2;
    }
    first.fill(0, dim);
    for (let i = 1; i < chunks.length; i++) chunks[i]!.query.set(first);
    return { t, qNorm, qErr: Math.sqrt(eq2) };
  }

  /**
   * Runs the kernel over rows 0..n-1, one memory and one block at a time, skipping rows whose upper bound
   * is below `th.floor`; `each(chunk, firstRowOfChunk, pairs)` reads the (row, sum) pairs in `chunk.out`
   * and may raise `th.floor` for the next block. `firstBlock` rows go first (to fill a top k).
   */
  function scan(n: number, th: Int8Threshold, firstBlock: number, each: (c: Chunk, base: number, pairs: number) => void): void {
    let block = wholeTiles(Math.min(firstBlock, BLOCK_ROWS));
    for (let i = 0, base = 0; base < n; i++, base += chunkRows) {
      const c = chunks[i]!;
      const rows = Math.min(n - base, chunkRows);
      for (let local = 0; local < rows; ) {
        const len = Math.min(rows - local, block, c.out.length / 2);
        const pairs = c.kernel
          ? c.kernel.filter(int8RowByte(stride, local), c.queryOffset, c.outOffset, len, stride, base + local, th)
          : filterInt8Js(c.data, c.meta, stride, int8RowByte(stride, local), len, c.query, c.out, base + local, th);
        each(c, base, pairs);
        local += len;
        block = BLOCK_ROWS;
      }
    }
  }

  return {
    dim,
    get capacity() {
      return capacity;
    },
    set(slot, v) {
      if (v.length !== dim) throw new RangeError(`vector dim ${v.length} != ${dim}`);
      if (slot >= capacity) this.reserve(slot + 1);
      let m = 0;
      for (let i = 0; i < dim; i++) m = Math.max(m, Math.abs(v[i]!));
      const s = Math.fround(m / ROW_MAX);
      const c = chunks[Math.floor(slot / chunkRows)]!;
      const local = slot % chunkRows;
      const off = int8RowByte(stride, local);
      const data = c.data;
      let e2 = 0;
      let n2 = 0;
      for (let i = 0; i < dim; i++) {
        // s was rounded, so v/s may pass 127 by a hair: the clamp's extra error is counted in e2.
        const x = s === 0 ? 0 : Math.max(-ROW_MAX, Math.min(ROW_MAX, Math.round(v[i]! / s)));
        data[off + int8ComponentOffset(i)] = x;
        const back = s * x;
        e2 += (v[i]! - back) ** 2;
        n2 += back * back;
      }
      // Padding must be zero, and after a grow these bytes may be the old query or kernel output.
      for (let i = dim; i < stride; i++) data[off + int8ComponentOffset(i)] = 0;
      const e = Math.sqrt(e2);
      const n = Math.sqrt(n2);
      const at = int8ScaleIndex(stride, local);
      c.meta[at] = s;
      c.meta[at + 4] = float32Up(e + REL_SLACK * (n + e));
      c.meta[at + 8] = float32Up(n);
      maxNorm = Math.max(maxNorm, n + e);
    },
    move(from, to) {
      if (from === to) return;
      const a = chunks[Math.floor(from / chunkRows)]!;
      const b = chunks[Math.floor(to / chunkRows)]!;
      const [fromLocal, toLocal] = [from % chunkRows, to % chunkRows];
      const [fromOff, toOff] = [int8RowByte(stride, fromLocal), int8RowByte(stride, toLocal)];
      for (let i = 0; i < stride; i++) b.data[toOff + int8ComponentOffset(i)] = a.data[fromOff + int8ComponentOffset(i)]!;
      const [fromAt, toAt] = [int8ScaleIndex(stride, fromLocal), int8ScaleIndex(stride, toLocal)];
      for (let i = 0; i <= 8; i += 4) b.meta[toAt + i] = a.meta[fromAt + i]!;
    },
    reserve(cap) {
      if (cap <= capacity) return;
      grow(Math.max(cap, Math.ceil(capacity * (1 + HEADROOM)), 16));
    },
    bounds(q, rows) {
      const n = Math.min(rows, capacity);
      if (lower.length < n) {
        lower = new Float64Array(capacity);
        upper = new Float64Array(capacity);
      }
      const p = prepareQuery(q);
      if (!p) {
        // Scores this large (or a non-finite query) are outside what the interval covers: no pruning.
        lower.fill(-Infinity, 0, n);
        upper.fill(Infinity, 0, n);
      } else {
        const { t, qNorm, qErr } = p;
        // Floor -Infinity: the kernel writes every row.
        scan(n, { floor: -Infinity, t, qNorm, qErr, slack: ABS_SLACK }, BLOCK_ROWS, (c, base, pairs) => {
          // Locals, not the closure's reassignable bindings, so the loop does not reload them per row.
          const [O, MT, LO, UP] = [c.out, c.meta, lower, upper];
          for (let i = 0; i < pairs; i++) {
            const r = O[2 * i]!;
            const at = int8ScaleIndex(stride, r - base);
            const approx = O[2 * i + 1]! * MT[at]! * t;
            const bound = qNorm * MT[at + 4]! + qErr * MT[at + 8]! + ABS_SLACK;
            LO[r] = approx - bound;
            UP[r] = approx + bound;
          }
        });
      }
      return { lower: lower.subarray(0, n), upper: upper.subarray(0, n) };
    },
    candidates(q, rows, k) {
      const n = Math.min(rows, capacity);
      if (!Number.isInteger(k) || k < 1) throw new RangeError(`k must be a whole number >= 1, got ${k}`);
      const all = () => Int32Array.from({ length: n }, (_, r) => r);
      if (k >= n) return all();
      const p = prepareQuery(q);
      if (!p) return all();
      const { t, qNorm, qErr } = p;
      // One pass: a min-heap of the k largest lower bounds seen so far, whose root only rises, and every
      // row whose upper bound reaches the root at its turn. The final root is the k-th largest lower bound
      // of all rows; rows let in under an earlier, lower root are dropped by a last filter. The kernel
      // already skips rows whose upper bound is below the root as it stood when its block began: such a
      // row's lower bound is below the root too, so it could neither enter the heap nor pass the filter.
      if (heap.length < k) heap = new Float64Array(k);
      const H = heap;
      let kept = 0;
      let floor = -Infinity;
      const rowsIn: number[] = [];
      const uppers: number[] = [];
      const th: Int8Threshold = { floor, t, qNorm, qErr, slack: ABS_SLACK };
      scan(n, th, Math.max(k, FIRST_BLOCK_ROWS), (c, base, pairs) => {
        const [O, MT] = [c.out, c.meta];
        for (let i = 0; i < pairs; i++) {
          const r = O[2 * i]!;
          const at = int8ScaleIndex(stride, r - base);
          const approx = O[2 * i + 1]! * MT[at]! * t;
          const bound = qNorm * MT[at + 4]! + qErr * MT[at + 8]! + ABS_SLACK;
          const v = approx - bound;
          if (kept < k) {
            let j = kept++;
            while (j > 0) {
              const parent = (j - 1) >> 1;
              if (!(H[parent]! > v)) break;
              H[j] = H[parent]!;
              j = parent;
            }
            H[j] = v;
            if (kept === k) floor = H[0]!;
          } else if (v > floor) {
            let j = 0;
            for (;;) {
              const l = 2 * j + 1;
              if (l >= k) break;
              const m = l + 1 < k && H[l + 1]! < H[l]! ? l + 1 : l;
              if (!(H[m]! < v)) break;
              H[j] = H[m]!;
              j = m;
            }
            H[j] = v;
            floor = H[0]!;
          }
          if (approx + bound >= floor) {
            rowsIn.push(r);
            uppers.push(approx + bound);
          }
        }
        th.floor = floor;
      });
      const out: number[] = [];
      for (let i = 0; i < rowsIn.length; i++) if (uppers[i]! >= floor) out.push(rowsIn[i]!);
      return Int32Array.from(out);
    },
    residentBytes() {
      let bytes = lower.byteLength + upper.byteLength;
      for (const c of chunks) bytes += c.kernel ? c.kernel.memory.buffer.byteLength : c.data.byteLength + c.out.byteLength;
      return bytes;
    },
  };
}
