import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createSimdInt8Dots, dotsInt8Js, INT8_STEP } from './simd-int8-dots.ts';

describe('int8 dot kernel', () => {
  it('assembles and validates on this runtime (else the index silently falls back to the JS loop)', () => {
    expect(createSimdInt8Dots(1)).not.toBeNull();
  });

  it('property: the SIMD kernel returns exactly the JS twin’s sums, up to the int32 limit the caller keeps', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 24 }),
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 0, max: 2 ** 32 - 1 }),
        fc.boolean(),
        (steps, rows, seed, extremes) => {
          const stride = steps * INT8_STEP;
          // The same limit quantized-rows.ts applies to the query.
          const qMax = Math.min(32_767, Math.floor((2 ** 31 - 1) / (127 * stride)));
          let s = seed;
          const rand = () => ((s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 2 ** 32);
          const pick = (max: number) => (extremes ? (rand() < 0.5 ? -max : max) : Math.round((rand() * 2 - 1) * max));
          const k = createSimdInt8Dots(Math.ceil((rows * stride + stride * 2 + rows * 4) / 65_536) + 1)!;
          const data = new Int8Array(k.memory.buffer, 0, rows * stride);
          for (let i = 0; i < data.length; i++) data[i] = pick(127);
          const q = new Int16Array(k.memory.buffer, rows * stride, stride);
          for (let i = 0; i < stride; i++) q[i] = pick(qMax);
          const outOffset = rows * stride + stride * 2;
          k.dots(0, rows * stride, outOffset, rows, stride);
          const want = new Int32Array(rows);
          dotsInt8Js(data, stride, rows, q, want);
          expect(Array.from(new Int32Array(k.memory.buffer, outOffset, rows))).toEqual(Array.from(want));
        },
      ),
      { numRuns: 200 },
    );
  });
});
