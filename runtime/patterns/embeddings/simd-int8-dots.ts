// The Tier 2 index's first pass (issue 16: 10k × 512 within 1 ms): int8 copies of the rows against an int16
// copy of the query. A quarter of the float32 bytes, and integer multiply-adds that need no widening to
// float64, make the pass several times faster than simd-dots.ts; the scores are approximate, and
// quantized-rows.ts bounds their error so the index can re-score the few rows that matter exactly.
// Integer sums are exact in both paths (the caller keeps them inside int32), so the kernel and its JS
// twin return the same values and either one can serve any query.
//
// The kernel also applies the index's threshold: each row's scale, error and norm sit beside it, and only
// rows whose upper bound can reach the caller's running floor are written out (at a million rows this
// saved a JS pass over every row's sum, about 10 ms of a 30 ms query).
//
// Rows are stored in tiles of four, their components interleaved eight at a time, so that one pass scores
// four rows sharing each load of the query while still reading memory front to back; the four rows' sums
// and upper bounds are then formed side by side in vector lanes. In two scratch runs of the kernel alone
// over 1M rows that took 24.8 → 15.6 and 26.5 → 19.6 ms of CPU (medians of 9–11 passes, load 0.6–2.4).
// Four rows kept at their own addresses instead (four streams 400 bytes apart) ran slower than one row at
// a time, and unrolling one row's loop made TurboFan spill vector registers.
import { F64, get, I32, kernelModule, lazyInstance, set, simd, sleb, uleb, V128, V128_LOAD, V128_ZERO, vec } from './wasm-bytes.ts';

/** Rows and queries are padded to a multiple of this many components. */
export const INT8_STEP = 32;
/** Rows per tile: the kernel scores a tile's rows together. */
export const INT8_TILE_ROWS = 4;
/** Bytes after a tile's rows: the four rows' scales, then their errors, then their norms, as float32. */
export const INT8_TILE_META_BYTES = 48;
/** Components of one row stored together before the next row's (one `v128.load8x8_s`). */
const CHUNK = 8;

/** Bytes of one tile of rows `stride` components long (meta included). */
export const int8TileBytes = (stride: number): number => INT8_TILE_ROWS * stride + INT8_TILE_META_BYTES;
/** Byte offset of row `r`'s first component, counting tiles from byte 0; component i is at + `int8ComponentOffset(i)`. */
export const int8RowByte = (stride: number, r: number): number => Math.floor(r / INT8_TILE_ROWS) * int8TileBytes(stride) + (r % INT8_TILE_ROWS) * CHUNK;
/** Offset of component `i` from its row's first component: eight of this row, then eight of each other row of the tile. */
export const int8ComponentOffset = (i: number): number => Math.floor(i / CHUNK) * CHUNK * INT8_TILE_ROWS + (i % CHUNK);
/** Float32 index of row `r`'s scale (its error is 4 further on, its norm 8), counting tiles from byte 0. */
export const int8ScaleIndex = (stride: number, r: number): number =>
  (Math.floor(r / INT8_TILE_ROWS) * int8TileBytes(stride) + INT8_TILE_ROWS * stride) / 4 + (r % INT8_TILE_ROWS);

/** What one call of the filter needs besides the rows: the scaled query's terms and the running floor. */
export interface Int8Threshold {
  /** Rows whose upper bound is below this are skipped; -Infinity writes every row. */
  floor: number;
  /** The query's scale, norm and quantisation error, and the absolute slack (quantized-rows.ts). */
  t: number;
  qNorm: number;
  qErr: number;
  slack: number;
}

/**
 * The upper bound the filter tests, in the order of operations both paths use (float64, no fused
 * multiply-add; the kernel's float64x2 lanes round exactly as scalars do), so they keep the same rows.
 */
export const upperBound = (sum: number, scale: number, err: number, norm: number, th: Int8Threshold): number => sum * scale * th.t + (th.qNorm * err + th.qErr * norm + th.slack);

/**
 * Tiles of rows `stride` int8 components long from byte `m` of `data` (`meta` the same bytes as float32):
 * for each of `rows` rows, its sum with `q`; rows whose `upperBound` is not below `th.floor` are written
 * to `out` as (first + row, sum) pairs. Returns how many pairs.
 */
export function filterInt8Js(data: Int8Array, meta: Float32Array, stride: number, m: number, rows: number, q: Int16Array, out: Int32Array, first: number, th: Int8Threshold): number {
  let n = 0;
  for (let r = 0; r < rows; r++) {
    const off = m + int8RowByte(stride, r);
    let s = 0;
    for (let c = 0; c < stride; c += CHUNK) {
      const at = off + c * INT8_TILE_ROWS;
      for (let i = 0; i < CHUNK; i++) s += data[at + i]! * q[c + i]!;
    }
    const at = m / 4 + int8ScaleIndex(stride, r);
    if (!(upperBound(s, meta[at]!, meta[at + 4]!, meta[at + 8]!, th) < th.floor)) {
      out[2 * n] = first + r;
      out[2 * n + 1] = s;
      n++;
    }
  }
  return n;
}

/** v128.load8x8_s: eight int8 widened to int16 as they load (one pmovsxbw from memory on x64). */
const V128_LOAD8X8_S = (offset: number) => [...simd(0x01), 3, ...uleb(offset)];
/** v128.load64_zero: two float32 (two rows' scales, errors or norms) into the low half. */
const V128_LOAD64_ZERO = (offset: number) => [...simd(0x5d), 3, ...uleb(offset)];
const I32X4_DOT_I16X8_S = simd(0xba);
const I32X4_ADD = simd(0xae);
const I32X4_LANE = (l: number) => [...simd(0x1b), l];
const I8X16_SHUFFLE = (lanes32: number[]) => [...simd(0x0d), ...lanes32.flatMap((l) => [4 * l, 4 * l + 1, 4 * l + 2, 4 * l + 3])];
const [F64X2_SPLAT, F64X2_CONVERT_LOW_I32X4_S, F64X2_PROMOTE_LOW_F32X4] = [simd(0x14), simd(0xfe), simd(0x5f)];
const [F64X2_MUL, F64X2_ADD, F64X2_LT] = [simd(0xf2), simd(0xf0), simd(0x49)];
const [V128_AND, I64X2_ALL_TRUE, I64X2_BITMASK] = [simd(0x4e), simd(0xc3), simd(0xc4)];

// filter8(m, q, out, rows, stride, first, floor, t, qNorm, qErr, slack) → pairs written. m = first tile,
// q = int16 query, out = (row, sum) int32 pairs; stride is a positive multiple of 8 (32 in practice).
// Per step: eight query values loaded once, and eight components of each of the tile's four rows loaded
// as int16 (load8x8_s), multiplied pairwise and summed into int32 lanes (i32x4.dot_i16x8_s), one
// accumulator per row. Then the four sums side by side and their upper bounds two by two in float64x2.
const [M, Q, OUT, ROWS, STRIDE, FIRST, FLOOR, T, QNORM, QERR, SLACK] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10] as const;
// Locals: P, QP, END, N, TILE, KEEP, LAST, AHEAD (i32); QV, SUMS, LO, HI, and the splatted T, QNORM, QERR,
// SLACK, FLOOR (v128); one accumulator per row of the tile (v128).
const [P, QP, END, N, TILE, KEEP, LAST, AHEAD] = [11, 12, 13, 14, 15, 16, 17, 18] as const;
const [QV, SUMS, LO, HI, TV, QNV, QEV, SLV, FLV] = [19, 20, 21, 22, 23, 24, 25, 26, 27] as const;
const ACC = (j: number) => 28 + j;
const ROWS_OF_TILE = [0, 1, 2, 3];
/**
 * Bytes ahead of each tile that the kernel reads (and drops) one int32 from. The hardware prefetcher
 * follows a stream only within a 4 KiB page, so without it each new page began with a full miss; reading a
 * few pages ahead starts the next pages early. A 1M-row pass went from 20.6–22.6 to 15.6–16.3 ms of CPU at
 * load 3.4–4 (any distance from 4 to 128 KiB alike; 2 KiB, or a read per 32 bytes, made it slower).
 */
const READ_AHEAD = 16_384;

/** Two rows' upper bounds (rows `pair`·2 and +1) compared with the floor: all ones in a lane where below. */
const belowFloor = (pair: number) => [
  ...get(SUMS), ...(pair ? [...get(SUMS), ...I8X16_SHUFFLE([2, 3, 2, 3])] : []), ...F64X2_CONVERT_LOW_I32X4_S,
  ...get(P), ...V128_LOAD64_ZERO(8 * pair), ...F64X2_PROMOTE_LOW_F32X4, ...F64X2_MUL, ...get(TV), ...F64X2_MUL, // sum·scale·t
  ...get(QNV), ...get(P), ...V128_LOAD64_ZERO(16 + 8 * pair), ...F64X2_PROMOTE_LOW_F32X4, ...F64X2_MUL, // + (qNorm·err
  ...get(QEV), ...get(P), ...V128_LOAD64_ZERO(32 + 8 * pair), ...F64X2_PROMOTE_LOW_F32X4, ...F64X2_MUL, ...F64X2_ADD, // + qErr·norm
  ...get(SLV), ...F64X2_ADD, ...F64X2_ADD, // + slack)
  ...get(FLV), ...F64X2_LT,
];

const BODY = [
  ...vec([[8, I32], [9 + ROWS_OF_TILE.length, V128]]),
  ...get(T), ...F64X2_SPLAT, ...set(TV),
  ...get(QNORM), ...F64X2_SPLAT, ...set(QNV),
  ...get(QERR), ...F64X2_SPLAT, ...set(QEV),
  ...get(SLACK), ...F64X2_SPLAT, ...set(SLV),
  ...get(FLOOR), ...F64X2_SPLAT, ...set(FLV),
  ...get(STRIDE), 0x41, 2, 0x74, 0x41, INT8_TILE_META_BYTES, 0x6a, ...set(TILE), // TILE = 4·stride + 48
  ...get(ROWS), 0x41, 3, 0x6a, 0x41, 2, 0x76, ...get(TILE), 0x6c, ...get(M), 0x6a, 0x41, 4, 0x6b, ...set(LAST), // LAST = m + ⌈rows/4⌉·TILE − 4
  0x02, 0x40, // block $done
  0x03, 0x40, // loop $tiles
  ...get(ROWS), 0x41, 0, 0x4c, 0x0d, 1, // rows <= 0 → br $done
  // Read ahead within this call's tiles: (m + READ_AHEAD ≤ LAST ? m + READ_AHEAD : m), value dropped.
  ...get(M), 0x41, ...sleb(READ_AHEAD), 0x6a, ...set(AHEAD),
  ...get(AHEAD), ...get(M), ...get(AHEAD), ...get(LAST), 0x4d, 0x1b, 0x28, 2, 0, 0x1a,
  ...ROWS_OF_TILE.flatMap((j) => [...V128_ZERO, ...set(ACC(j))]),
  ...get(Q), ...set(QP),
  ...get(M), ...set(P),
  ...get(M), ...get(TILE), 0x6a, 0x41, INT8_TILE_META_BYTES, 0x6b, ...set(END), // END = m + 4·stride
  0x03, 0x40, // loop $steps: eight components of each row
  ...get(QP), ...V128_LOAD(0), ...set(QV),
  ...ROWS_OF_TILE.flatMap((j) => [...get(ACC(j)), ...get(P), ...V128_LOAD8X8_S(CHUNK * j), ...get(QV), ...I32X4_DOT_I16X8_S, ...I32X4_ADD, ...set(ACC(j))]),
  ...get(P), 0x41, CHUNK * INT8_TILE_ROWS, 0x6a, ...set(P),
  ...get(QP), 0x41, 2 * CHUNK, 0x6a, ...set(QP),
  ...get(P), ...get(END), 0x49, 0x0d, 0, // p < END → next step
  0x0b,
  // The four accumulators' lanes summed, row j's sum in lane j: two interleaves, two adds, then halves.
  ...get(ACC(0)), ...get(ACC(1)), ...I8X16_SHUFFLE([0, 4, 1, 5]), ...get(ACC(0)), ...get(ACC(1)), ...I8X16_SHUFFLE([2, 6, 3, 7]), ...I32X4_ADD, ...set(LO),
  ...get(ACC(2)), ...get(ACC(3)), ...I8X16_SHUFFLE([0, 4, 1, 5]), ...get(ACC(2)), ...get(ACC(3)), ...I8X16_SHUFFLE([2, 6, 3, 7]), ...I32X4_ADD, ...set(HI),
  ...get(LO), ...get(HI), ...I8X16_SHUFFLE([0, 1, 4, 5]), ...get(LO), ...get(HI), ...I8X16_SHUFFLE([2, 3, 6, 7]), ...I32X4_ADD, ...set(SUMS),
  // p now points at the tile's scales, errors and norms.
  ...belowFloor(0), ...set(LO),
  ...belowFloor(1), ...set(HI),
  ...get(LO), ...get(HI), ...V128_AND, ...I64X2_ALL_TRUE, 0x45,
  0x04, 0x40, // if some row's bound reaches the floor: KEEP = bit j clear where row j is kept
  ...get(LO), ...I64X2_BITMASK, ...get(HI), ...I64X2_BITMASK, 0x41, 2, 0x74, 0x72, ...set(KEEP),
  ...ROWS_OF_TILE.flatMap((j) => [
    ...get(KEEP), 0x41, 1 << j, 0x71, 0x45, ...get(ROWS), 0x41, j, 0x4a, 0x71, // !(KEEP & 1<<j) && rows > j (a last tile may be partial)
    0x04, 0x40, // if: write (first + j, sum j), out += 8, n += 1
    ...get(OUT), ...get(FIRST), 0x41, j, 0x6a, 0x36, 2, 0,
    ...get(OUT), ...get(SUMS), ...I32X4_LANE(j), 0x36, 2, 4,
    ...get(OUT), 0x41, 8, 0x6a, ...set(OUT),
    ...get(N), 0x41, 1, 0x6a, ...set(N),
    0x0b,
  ]),
  0x0b,
  ...get(M), ...get(TILE), 0x6a, ...set(M), // next tile
  ...get(FIRST), 0x41, INT8_TILE_ROWS, 0x6a, ...set(FIRST),
  ...get(ROWS), 0x41, INT8_TILE_ROWS, 0x6b, ...set(ROWS),
  0x0c, 0, // br $tiles
  0x0b, // end loop
  0x0b, // end block
  ...get(N),
  0x0b, // end body
];

/** filter8's signature: byte offsets and counts, then the threshold's five float64 terms; returns pairs written. */
type Filter8 = (m: number, q: number, out: number, rows: number, stride: number, first: number, floor: number, t: number, qNorm: number, qErr: number, slack: number) => number;

const PARAMS = [I32, I32, I32, I32, I32, I32, F64, F64, F64, F64, F64];
// Null where the runtime lacks WebAssembly SIMD: callers fall back to `filterInt8Js` (same results).
const instantiate = lazyInstance<Filter8>(kernelModule('filter8', PARAMS, BODY, [I32]), 'filter8');

/** The int8 filter kernel bound to one memory, all addresses by byte offset. */
export interface SimdInt8Filter {
  readonly memory: WebAssembly.Memory;
  filter(m: number, q: number, out: number, rows: number, stride: number, first: number, th: Int8Threshold): number;
}

/** The kernel over a fresh memory of `pages` 64 KiB pages, or null when SIMD is unavailable. */
export function createSimdInt8Filter(pages: number): SimdInt8Filter | null {
  const k = instantiate(pages);
  if (!k) return null;
  const f = k.fn;
  return { memory: k.memory, filter: (m, q, out, rows, stride, first, th) => f(m, q, out, rows, stride, first, th.floor, th.t, th.qNorm, th.qErr, th.slack) };
}
