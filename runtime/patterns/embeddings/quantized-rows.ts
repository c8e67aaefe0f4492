// Int8 copies of float32 rows that answer, for a query q, an interval holding each row's exact score
// (the float32 dot product `dotsJs` computes), so an exact top-k search can scan a quarter of the bytes
// and re-score only the rows whose interval can still reach the top.
//
// Why the interval is sound. A row v is stored as ṽ = s·v̂ (v̂ int8, s = max|v|/127), the query as
// q̃ = t·q̂ (q̂ int16). The kernel's integer sum gives dot(q̃, ṽ) = s·t·Σ q̂v̂ exactly, and
//   dot(q, v) − dot(q̃, ṽ) = dot(q, v − ṽ) + dot(q − q̃, ṽ),
// so by Cauchy–Schwarz |dot(q, v) − dot(q̃, ṽ)| ≤ ‖q‖·‖v − ṽ‖ + ‖q − q̃‖·‖ṽ‖. The exact score differs from
// the real dot(q, v) by float64 summation and the final float32 rounding: relatively less than 2^-23 of
// ‖q‖·‖v‖ (and ‖v‖ ≤ ‖ṽ‖ + ‖v − ṽ‖), plus at most 2^-150 where the result is subnormal. The bound adds
// 2^-20 of ‖q‖·(‖ṽ‖ + ‖v − ṽ‖) and 2^-126 to cover those and the float64 rounding of the bound itself.
import { createSimdInt8Dots, dotsInt8Js, INT8_STEP, type SimdInt8Dots } from './simd-int8-dots.ts';

/** Rows quantised to int8 with what it takes to bound their error against a query. */
export interface QuantizedRows {
  readonly dim: number;
  /** Quantises `v` (length `dim`, finite) into `slot`. */
  set(slot: number, v: Float32Array): void;
  /** Copies slot `from` over slot `to` (swap-remove). */
  move(from: number, to: number): void;
  /** Makes room for `capacity` slots. */
  reserve(capacity: number): void;
  /**
   * For rows 0..rows-1, `lower[r] ≤ dotsJs(row r, q) ≤ upper[r]`. The arrays are views that the next call
   * overwrites.
   */
  bounds(q: Float32Array, rows: number): { lower: Float64Array; upper: Float64Array };
}

const PAGE = 65_536;
const ROW_MAX = 127;
/** Relative slack for float rounding (see the header): 2^-20 of ‖q‖·‖v‖ bounds. */
const REL_SLACK = 2 ** -20;
/** Absolute slack: float32's smallest normal, far above the subnormal rounding step. */
const ABS_SLACK = 2 ** -126;
/** Above this ‖q‖·‖v‖ a float32 score may overflow to ±Infinity; the interval then gives up. */
const OVERFLOW_GUARD = 2 ** 120;

/** Creates empty quantised rows of `dim` components; `simd: false` forces the JS loop (as without SIMD). */
export function createQuantizedRows(dim: number, initialCapacity = 64, options: { simd?: boolean } = {}): QuantizedRows {
  if (!Number.isInteger(dim) || dim < 1) throw new RangeError(`dim must be a whole number >= 1, got ${dim}`);
  // Zero padding to whole kernel steps adds nothing to any sum.
  const stride = Math.ceil(dim / INT8_STEP) * INT8_STEP;
  // Largest query magnitude that keeps Σ |q̂·v̂| ≤ stride·127·qMax inside int32.
  const qMax = Math.min(32_767, Math.floor((2 ** 31 - 1) / (ROW_MAX * stride)));
  if (qMax < 1) throw new RangeError(`dim ${dim} is too large for int32 sums`);
  const simd: SimdInt8Dots | null = options.simd === false ? null : createSimdInt8Dots(1);
  let capacity = 0;
  let data = new Int8Array(0);
  let query = new Int16Array(stride);
  let sums = new Int32Array(0);
  let outOffset = 0;
  let queryOffset = 0;
  // Per row: the scale s, ‖v − ṽ‖ with its rounding slack, and ‖ṽ‖.
  let scale = new Float64Array(0);
  let err = new Float64Array(0);
  let norm = new Float64Array(0);
  // Never lowered on delete: only the overflow guard reads it, and a stale larger value is still safe.
  let maxNorm = 0;
  let lower = new Float64Array(0);
  let upper = new Float64Array(0);

  function grow(cap: number): void {
    const bytes = cap * stride;
    if (simd) {
      // Matrix from byte 0 (kept in place by memory.grow), then the int16 query, then the int32 sums.
      const need = bytes + stride * 2 + cap * 4;
      const have = simd.memory.buffer.byteLength;
      if (need > have) simd.memory.grow(Math.ceil((need - have) / PAGE));
      data = new Int8Array(simd.memory.buffer, 0, bytes);
      queryOffset = bytes;
      query = new Int16Array(simd.memory.buffer, queryOffset, stride);
      outOffset = bytes + stride * 2;
      sums = new Int32Array(simd.memory.buffer, outOffset, cap);
    } else {
      const grown = new Int8Array(bytes);
      grown.set(data);
      data = grown;
      sums = new Int32Array(cap);
    }
    const widen = (a: Float64Array) => {
      const b = new Float64Array(cap);
      b.set(a);
      return b;
    };
    scale = widen(scale);
    err = widen(err);
    norm = widen(norm);
    lower = new Float64Array(cap);
    upper = new Float64Array(cap);
    capacity = cap;
  }
  grow(initialCapacity);

  return {
    dim,
    set(slot, v) {
      if (v.length !== dim) throw new RangeError(`vector dim ${v.length} != ${dim}`);
      if (slot >= capacity) this.reserve(slot + 1);
      let m = 0;
      for (let i = 0; i < dim; i++) m = Math.max(m, Math.abs(v[i]!));
      const s = m / ROW_MAX;
      const off = slot * stride;
      let e2 = 0;
      let n2 = 0;
      for (let i = 0; i < dim; i++) {
        const x = s === 0 ? 0 : Math.max(-ROW_MAX, Math.min(ROW_MAX, Math.round(v[i]! / s)));
        data[off + i] = x;
        const back = s * x;
        e2 += (v[i]! - back) ** 2;
        n2 += back * back;
      }
      // Padding must be zero, and after a grow these bytes may be the old query or sums.
      data.fill(0, off + dim, off + stride);
      const e = Math.sqrt(e2);
      const n = Math.sqrt(n2);
      scale[slot] = s;
      norm[slot] = n;
      err[slot] = e + REL_SLACK * (n + e);
      maxNorm = Math.max(maxNorm, n + e);
    },
    move(from, to) {
      if (from === to) return;
      data.copyWithin(to * stride, from * stride, (from + 1) * stride);
      scale[to] = scale[from]!;
      err[to] = err[from]!;
      norm[to] = norm[from]!;
    },
    reserve(cap) {
      if (cap <= capacity) return;
      let next = Math.max(capacity, 16);
      while (next < cap) next *= 2;
      grow(next);
    },
    bounds(q, rows) {
      if (q.length !== dim) throw new RangeError(`query dim ${q.length} != ${dim}`);
      const n = Math.min(rows, capacity);
      let m = 0;
      let q2 = 0;
      for (let i = 0; i < dim; i++) {
        m = Math.max(m, Math.abs(q[i]!));
        q2 += q[i]! * q[i]!;
      }
      const qNorm = Math.sqrt(q2);
      if (!(qNorm * maxNorm < OVERFLOW_GUARD)) {
        // Scores this large (or a non-finite query) are outside what the interval covers: no pruning.
        lower.fill(-Infinity, 0, n);
        upper.fill(Infinity, 0, n);
        return { lower: lower.subarray(0, n), upper: upper.subarray(0, n) };
      }
      const t = m / qMax;
      let eq2 = 0;
      for (let i = 0; i < dim; i++) {
        const x = t === 0 ? 0 : Math.max(-qMax, Math.min(qMax, Math.round(q[i]! / t)));
        query[i] = x;
        eq2 += (q[i]! - t * x) ** 2;
      }
      query.fill(0, dim);
      const qErr = Math.sqrt(eq2);
      if (simd) simd.dots(0, queryOffset, outOffset, n, stride);
      else dotsInt8Js(data, stride, n, query, sums);
      // Locals, not the closure's reassignable bindings, so the loop does not reload them per row.
      const [S, SC, ER, NO, LO, UP] = [sums, scale, err, norm, lower, upper];
      for (let r = 0; r < n; r++) {
        const approx = S[r]! * SC[r]! * t;
        const bound = qNorm * ER[r]! + qErr * NO[r]! + ABS_SLACK;
        LO[r] = approx - bound;
        UP[r] = approx + bound;
      }
      return { lower: LO.subarray(0, n), upper: UP.subarray(0, n) };
    },
  };
}
