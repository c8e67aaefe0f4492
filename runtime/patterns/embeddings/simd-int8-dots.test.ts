import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createSimdInt8Filter, dotsInt8Js, filterInt8Js, INT8_META_BYTES, INT8_STEP, type Int8Threshold, upperBound } from './simd-int8-dots.ts';

describe('int8 dot kernel', () => {
  it('assembles and validates on this runtime (else the index silently falls back to the JS loop)', () => {
    expect(createSimdInt8Filter(1)).not.toBeNull();
  });

  it('property: the SIMD kernel keeps exactly the rows and sums of its JS twin, and its sums are the plain dot products', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 24 }),
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 0, max: 2 ** 32 - 1 }),
        fc.boolean(),
        fc.oneof(fc.constant(-Infinity), fc.constant(Infinity), fc.double({ min: -2, max: 2, noNaN: true })),
        (steps, rows, seed, extremes, floor) => {
          const stride = steps * INT8_STEP;
          const rec = stride + INT8_META_BYTES;
          // The same limit quantized-rows.ts applies to the query.
          const qMax = Math.min(32_767, Math.floor((2 ** 31 - 1) / (127 * stride)));
          let s = seed;
          const rand = () => ((s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 2 ** 32);
          const pick = (max: number) => (extremes ? (rand() < 0.5 ? -max : max) : Math.round((rand() * 2 - 1) * max));
          // Records start one record in, so the kernel's offsets are exercised.
          const m = rec;
          const k = createSimdInt8Filter(Math.ceil(((rows + 1) * rec + stride * 2 + rows * 8) / 65_536) + 1)!;
          const data = new Int8Array(k.memory.buffer, 0, (rows + 1) * rec);
          const meta = new Float32Array(k.memory.buffer, 0, ((rows + 1) * rec) / 4);
          for (let r = 0; r < rows; r++) {
            const off = m + r * rec;
            for (let i = 0; i < stride; i++) data[off + i] = pick(127);
            const at = (off + stride) >> 2;
            meta[at] = rand() * 1e-3;
            meta[at + 1] = rand() * 1e-2;
            meta[at + 2] = rand();
          }
          const qOff = (rows + 1) * rec;
          const q = new Int16Array(k.memory.buffer, qOff, stride);
          for (let i = 0; i < stride; i++) q[i] = pick(qMax);
          const outOff = qOff + stride * 2;
          const th: Int8Threshold = { floor, t: rand() * 1e-4, qNorm: rand(), qErr: rand() * 1e-3, slack: 2 ** -126 };
          const got = k.filter(m, qOff, outOff, rows, stride, 7, th);
          const want = new Int32Array(rows * 2);
          const wantN = filterInt8Js(data, meta, stride, m, rows, q, want, 7, th);
          expect(got).toBe(wantN);
          expect(Array.from(new Int32Array(k.memory.buffer, outOff, got * 2))).toEqual(Array.from(want.subarray(0, wantN * 2)));
          // The twin's sums are the plain dot products, and it keeps exactly the rows whose bound reaches the floor.
          const sums = new Int32Array(rows);
          dotsInt8Js(data, stride, rows, q, sums, rec, m);
          const kept: number[] = [];
          for (let r = 0; r < rows; r++) {
            const at = (m + r * rec + stride) >> 2;
            if (!(upperBound(sums[r]!, meta[at]!, meta[at + 1]!, meta[at + 2]!, th) < floor)) kept.push(7 + r, sums[r]!);
          }
          expect(Array.from(want.subarray(0, wantN * 2))).toEqual(kept);
          if (floor === -Infinity) expect(wantN).toBe(rows);
        },
      ),
      { numRuns: 200 },
    );
  });
});
