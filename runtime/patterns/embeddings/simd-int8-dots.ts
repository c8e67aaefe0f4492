// The Tier 2 index's first pass (issue 16: 10k × 512 within 1 ms): int8 copies of the rows against an int16
// copy of the query. A quarter of the float32 bytes, and integer multiply-adds that need no widening to
// float64, make the pass several times faster than simd-dots.ts; the scores are approximate, and
// quantized-rows.ts bounds their error so the index can re-score the few rows that matter exactly.
// Integer sums are exact in both paths (the caller keeps them inside int32), so the kernel and its JS
// twin return the same values and either one can serve any query.
//
// The kernel also applies the index's threshold: each row's record carries its scale, error and norm, and
// only rows whose upper bound can reach the caller's running floor are written out. At a million rows
// this saves a JS pass over every row's sum (about 10 ms of a 30 ms query, measured with
// scripts/perf/knn-phases.ts), leaving the SIMD multiply-adds as the cost. Unrolling the row loop does
// not help on V8: TurboFan hoists every load of the unrolled body and spills the vector registers.
import { F64, get, I32, kernelModule, lazyInstance, set, simd, uleb, V128, V128_LOAD, V128_ZERO, vec } from './wasm-bytes.ts';

/** Rows and queries are padded to a multiple of this many components (one int8 v128 load per step). */
export const INT8_STEP = 32;
/** Bytes after each int8 row: its scale, error and norm as float32, then 4 bytes of padding. */
export const INT8_META_BYTES = 16;

/** `out[r] = Σ row_r[i] · q[i]` for `rows` int8 rows of `stride` bytes, each `rec` bytes apart in `data` from byte `m`. */
export function dotsInt8Js(data: Int8Array, stride: number, rows: number, q: Int16Array, out: Int32Array, rec = stride, m = 0): void {
  for (let r = 0, off = m; r < rows; r++, off += rec) {
    let s = 0;
    for (let i = 0; i < stride; i++) s += data[off + i]! * q[i]!;
    out[r] = s;
  }
}

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
 * multiply-add), so the kernel and the JS twin keep exactly the same rows.
 */
export const upperBound = (sum: number, scale: number, err: number, norm: number, th: Int8Threshold): number => sum * scale * th.t + (th.qNorm * err + th.qErr * norm + th.slack);

/**
 * Records of `stride` int8 bytes plus INT8_META_BYTES (scale, err, norm as float32) from byte `m` of
 * `data`: for each of `rows` rows, the sum with `q`; rows whose `upperBound` is not below `th.floor`
 * are written to `out` as (first + row, sum) pairs. Returns how many pairs.
 */
export function filterInt8Js(data: Int8Array, meta: Float32Array, stride: number, m: number, rows: number, q: Int16Array, out: Int32Array, first: number, th: Int8Threshold): number {
  const rec = stride + INT8_META_BYTES;
  let n = 0;
  for (let r = 0, off = m; r < rows; r++, off += rec) {
    let s = 0;
    for (let i = 0; i < stride; i++) s += data[off + i]! * q[i]!;
    const at = (off + stride) >> 2;
    if (!(upperBound(s, meta[at]!, meta[at + 1]!, meta[at + 2]!, th) < th.floor)) {
      out[2 * n] = first + r;
      out[2 * n + 1] = s;
      n++;
    }
  }
  return n;
}

/** v128.load8x8_s: eight int8 widened to int16 as they load (one pmovsxbw from memory on x64). */
const V128_LOAD8X8_S = (offset: number) => [...simd(0x01), 3, offset];
const I32X4_DOT_I16X8_S = simd(0xba);
const I32X4_ADD = simd(0xae);
const I32X4_LANE = (l: number) => [...simd(0x1b), l];
const F32_LOAD = (offset: number) => [0x2a, 2, ...uleb(offset)];
const F64_PROMOTE_F32 = 0xbb;
const [F64_MUL, F64_ADD, F64_LT, F64_CONVERT_I32_S] = [0xa2, 0xa0, 0x63, 0xb7];

// filter8(m, q, out, rows, stride, first, floor, t, qNorm, qErr, slack) → pairs written. m = records,
// q = int16 query, out = (row, sum) int32 pairs; stride is a positive multiple of 32. Per step: eight
// int8 components loaded as int16 (load8x8_s: about 8% less CPU at 1M rows than one load widened in two
// halves, which V8 does with an unpack and a shift), multiplied pairwise with eight query values and
// summed into int32 lanes (i32x4.dot_i16x8_s). Then the row's upper bound against the floor.
const [M, Q, OUT, ROWS, STRIDE, FIRST, FLOOR, T, QNORM, QERR, SLACK] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10] as const;
// Locals: END, QP, N, S (i32); ACC, ACC2 (v128).
const [END, QP, N, S, ACC, ACC2] = [11, 12, 13, 14, 15, 16] as const;
const BODY = [
  ...vec([[4, I32], [2, V128]]),
  0x02, 0x40, // block $done
  0x03, 0x40, // loop $rows
  ...get(ROWS), 0x45, 0x0d, 1, // rows == 0 → br $done
  ...V128_ZERO, ...set(ACC),
  ...V128_ZERO, ...set(ACC2),
  ...get(Q), ...set(QP),
  ...get(M), ...get(STRIDE), 0x6a, ...set(END), // END = m + stride
  0x03, 0x40, // loop $inner: thirty-two components per step, two accumulators
  ...get(ACC), ...get(M), ...V128_LOAD8X8_S(0), ...get(QP), ...V128_LOAD(0), ...I32X4_DOT_I16X8_S, ...I32X4_ADD, ...set(ACC),
  ...get(ACC), ...get(M), ...V128_LOAD8X8_S(8), ...get(QP), ...V128_LOAD(16), ...I32X4_DOT_I16X8_S, ...I32X4_ADD, ...set(ACC),
  ...get(ACC2), ...get(M), ...V128_LOAD8X8_S(16), ...get(QP), ...V128_LOAD(32), ...I32X4_DOT_I16X8_S, ...I32X4_ADD, ...set(ACC2),
  ...get(ACC2), ...get(M), ...V128_LOAD8X8_S(24), ...get(QP), ...V128_LOAD(48), ...I32X4_DOT_I16X8_S, ...I32X4_ADD, ...set(ACC2),
  ...get(M), 0x41, 32, 0x6a, ...set(M),
  ...get(QP), 0x41, 0xc0, 0x00, 0x6a, ...set(QP),
  ...get(M), ...get(END), 0x49, 0x0d, 0, // m < END → next step
  0x0b,
  ...get(ACC), ...get(ACC2), ...I32X4_ADD, ...set(ACC),
  ...get(ACC), ...I32X4_LANE(0), ...get(ACC), ...I32X4_LANE(1), 0x6a, ...get(ACC), ...I32X4_LANE(2), 0x6a, ...get(ACC), ...I32X4_LANE(3), 0x6a, ...set(S),
  // m now points at the row's scale, err and norm: upperBound(S, scale, err, norm) < floor → skip.
  ...get(S), F64_CONVERT_I32_S, ...get(M), ...F32_LOAD(0), F64_PROMOTE_F32, F64_MUL, ...get(T), F64_MUL,
  ...get(QNORM), ...get(M), ...F32_LOAD(4), F64_PROMOTE_F32, F64_MUL,
  ...get(QERR), ...get(M), ...F32_LOAD(8), F64_PROMOTE_F32, F64_MUL, F64_ADD,
  ...get(SLACK), F64_ADD, F64_ADD,
  ...get(FLOOR), F64_LT, 0x45, // !(upper < floor)
  0x04, 0x40, // if: write (first, S), out += 8, n += 1
  ...get(OUT), ...get(FIRST), 0x36, 2, 0,
  ...get(OUT), ...get(S), 0x36, 2, 4,
  ...get(OUT), 0x41, 8, 0x6a, ...set(OUT),
  ...get(N), 0x41, 1, 0x6a, ...set(N),
  0x0b,
  ...get(M), 0x41, INT8_META_BYTES, 0x6a, ...set(M), // next record
  ...get(FIRST), 0x41, 1, 0x6a, ...set(FIRST),
  ...get(ROWS), 0x41, 1, 0x6b, ...set(ROWS),
  0x0c, 0, // br $rows
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
