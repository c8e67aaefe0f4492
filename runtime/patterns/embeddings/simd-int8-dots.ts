// The Tier 2 index's first pass (issue 16: 10k × 512 within 1 ms): int8 copies of the rows against an int16
// copy of the query. A quarter of the float32 bytes, and integer multiply-adds that need no widening to
// float64, make the pass several times faster than simd-dots.ts; the scores are approximate, and
// quantized-rows.ts bounds their error so the index can re-score the few rows that matter exactly.
// Integer sums are exact in both paths (the caller keeps them inside int32), so the kernel and its JS
// twin return the same values and either one can serve any query.
import { get, I32, kernelModule, lazyKernel, NEXT_ROW, type SimdKernel, set, simd, V128, V128_LOAD, V128_ZERO, vec } from './wasm-bytes.ts';

/** Rows and queries are padded to a multiple of this many components (one int8 v128 load per step). */
export const INT8_STEP = 32;

/**
 * `out[r] = Σ row_r[i] · q[i]` for `rows` int8 rows of `stride` bytes back to back in `data`; `q` holds
 * `stride` int16 values. The caller keeps |row| ≤ 127 and |q| small enough that no sum leaves int32.
 */
export function dotsInt8Js(data: Int8Array, stride: number, rows: number, q: Int16Array, out: Int32Array): void {
  for (let r = 0, off = 0; r < rows; r++, off += stride) {
    let s = 0;
    for (let i = 0; i < stride; i++) s += data[off + i]! * q[i]!;
    out[r] = s;
  }
}

const I16X8_EXTEND_LOW_I8X16_S = simd(0x87);
const I16X8_EXTEND_HIGH_I8X16_S = simd(0x88);
const I32X4_DOT_I16X8_S = simd(0xba);
const I32X4_ADD = simd(0xae);
const I32X4_LANE = (l: number) => [...simd(0x1b), l];

// dots8(m, q, out, rows, stride): m = int8 rows, q = int16 query, out = int32 results; stride is a positive
// multiple of 16. Per step: sixteen int8 components, widened to int16 in two halves, each multiplied
// pairwise with eight query values and summed into int32 lanes (i32x4.dot_i16x8_s).
// Locals: END, QP (i32); ACC, X (v128).
const [M, Q, OUT, ROWS, STRIDE, END, QP, ACC, ACC2, X] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9] as const;
const BODY = [
  ...vec([[2, I32], [3, V128]]),
  0x02, 0x40, // block $done
  0x03, 0x40, // loop $rows
  ...get(ROWS), 0x45, 0x0d, 1, // rows == 0 → br $done
  ...V128_ZERO, ...set(ACC),
  ...V128_ZERO, ...set(ACC2),
  ...get(Q), ...set(QP),
  ...get(M), ...get(STRIDE), 0x6a, ...set(END), // END = m + stride
  0x03, 0x40, // loop $inner: thirty-two components per step, two accumulators
  ...get(M), ...V128_LOAD(0), ...set(X),
  ...get(ACC), ...get(X), ...I16X8_EXTEND_LOW_I8X16_S, ...get(QP), ...V128_LOAD(0), ...I32X4_DOT_I16X8_S, ...I32X4_ADD, ...set(ACC),
  ...get(ACC), ...get(X), ...I16X8_EXTEND_HIGH_I8X16_S, ...get(QP), ...V128_LOAD(16), ...I32X4_DOT_I16X8_S, ...I32X4_ADD, ...set(ACC),
  ...get(M), ...V128_LOAD(16), ...set(X),
  ...get(ACC2), ...get(X), ...I16X8_EXTEND_LOW_I8X16_S, ...get(QP), ...V128_LOAD(32), ...I32X4_DOT_I16X8_S, ...I32X4_ADD, ...set(ACC2),
  ...get(ACC2), ...get(X), ...I16X8_EXTEND_HIGH_I8X16_S, ...get(QP), ...V128_LOAD(48), ...I32X4_DOT_I16X8_S, ...I32X4_ADD, ...set(ACC2),
  ...get(M), 0x41, 32, 0x6a, ...set(M),
  ...get(QP), 0x41, 0xc0, 0x00, 0x6a, ...set(QP),
  ...get(M), ...get(END), 0x49, 0x0d, 0, // m < END → next step
  0x0b,
  ...get(ACC), ...get(ACC2), ...I32X4_ADD, ...set(ACC),
  ...get(OUT),
  ...get(ACC), ...I32X4_LANE(0), ...get(ACC), ...I32X4_LANE(1), 0x6a, ...get(ACC), ...I32X4_LANE(2), 0x6a, ...get(ACC), ...I32X4_LANE(3), 0x6a,
  0x36, 2, 0, // i32.store
  ...NEXT_ROW,
];
// Null where the runtime lacks WebAssembly SIMD: callers fall back to `dotsInt8Js` (same results).
const instantiate = lazyKernel(kernelModule('dots8', 5, BODY), 'dots8');

/** The int8 kernel (`width` = row stride in bytes). */
export type SimdInt8Dots = SimdKernel;

/** The kernel over a fresh memory of `pages` 64 KiB pages, or null when SIMD is unavailable. */
export const createSimdInt8Dots: (pages: number) => SimdInt8Dots | null = instantiate;
