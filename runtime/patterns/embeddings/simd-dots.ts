// The v2 K-NN's hot loop (harness §12: 20k × 384 within 5 ms): one query against every stored row.
// Plain JS tops out near 5 ms at 20k on a server core, so rows live in WebAssembly memory and a tiny
// hand-assembled SIMD kernel does the pass. It keeps the JS arithmetic exactly: four float64 lanes
// (i mod 4), each fed the exact products of float32 inputs in index order, summed ((s0+s1)+s2)+s3 and
// rounded to float32, so both paths return the same bits and either one can serve any query.
import { get, I32, kernelModule, lazyKernel, NEXT_ROW, type SimdKernel, set, simd, V128, V128_LOAD, V128_ZERO, vec } from './wasm-bytes.ts';

/** `out[r] = fround(Σ row_r · q)` for `rows` rows of `dim` floats laid out back to back in `data`. */
export function dotsJs(data: Float32Array, dim: number, rows: number, q: Float32Array, out: Float32Array): void {
  for (let r = 0, off = 0; r < rows; r++, off += dim) {
    let s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    let i = 0;
    // Four accumulators let V8 overlap the multiply-adds; the SIMD kernel mirrors them lane for lane.
    for (; i + 3 < dim; i += 4) {
      s0 += data[off + i]! * q[i]!;
      s1 += data[off + i + 1]! * q[i + 1]!;
      s2 += data[off + i + 2]! * q[i + 2]!;
      s3 += data[off + i + 3]! * q[i + 3]!;
    }
    for (; i < dim; i++) s0 += data[off + i]! * q[i]!;
    out[r] = s0 + s1 + s2 + s3;
  }
}

const F64X2_PROMOTE_LOW = simd(0x5f);
const F64X2_MUL = simd(0xf2);
const F64X2_ADD = simd(0xf0);
const LANE = (l: number) => [...simd(0x21), l];
const HIGH_HALF = [...simd(0x0d), 8, 9, 10, 11, 12, 13, 14, 15, 8, 9, 10, 11, 12, 13, 14, 15];

// dots(m, q, out, rows, dim): m = float32 rows, q = the query widened to float64, out = float32 results;
// dim must be a positive multiple of 4. Locals: END, QP (i32); A01, A23, X (v128).
const [M, Q, OUT, ROWS, DIM, END, QP, A01, A23, X] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9] as const;
const BODY = [
  ...vec([[2, I32], [3, V128]]),
  0x02, 0x40, // block $done
  0x03, 0x40, // loop $rows
  ...get(ROWS), 0x45, 0x0d, 1, // rows == 0 → br $done
  ...V128_ZERO, ...set(A01),
  ...V128_ZERO, ...set(A23),
  ...get(Q), ...set(QP),
  ...get(M), ...get(DIM), 0x41, 2, 0x74, 0x6a, ...set(END), // END = m + dim·4
  0x03, 0x40, // loop $inner: four floats per step
  ...get(M), ...V128_LOAD(0), ...set(X),
  ...get(A01), ...get(X), ...F64X2_PROMOTE_LOW, ...get(QP), ...V128_LOAD(0), ...F64X2_MUL, ...F64X2_ADD, ...set(A01),
  ...get(A23), ...get(X), ...get(X), ...HIGH_HALF, ...F64X2_PROMOTE_LOW, ...get(QP), ...V128_LOAD(16), ...F64X2_MUL, ...F64X2_ADD, ...set(A23),
  ...get(M), 0x41, 16, 0x6a, ...set(M),
  ...get(QP), 0x41, 32, 0x6a, ...set(QP),
  ...get(M), ...get(END), 0x49, 0x0d, 0, // m < END → next step
  0x0b,
  ...get(OUT),
  ...get(A01), ...LANE(0), ...get(A01), ...LANE(1), 0xa0, ...get(A23), ...LANE(0), 0xa0, ...get(A23), ...LANE(1), 0xa0,
  0xb6, 0x38, 2, 0, // f32.demote_f64, f32.store
  ...NEXT_ROW,
];
// Null where the runtime lacks WebAssembly SIMD: callers fall back to `dotsJs` (same results).
const instantiate = lazyKernel(kernelModule('dots', 5, BODY), 'dots');

/** The float32 kernel (`width` = dimensions). */
export type SimdDots = SimdKernel;

/** The kernel over a fresh memory of `pages` 64 KiB pages, or null when SIMD is unavailable. */
export const createSimdDots: (pages: number) => SimdDots | null = instantiate;
