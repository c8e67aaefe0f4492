import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
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
  upperBound,
} from './simd-int8-dots.ts';

describe('int8 dot kernel', () => {
  it('assembles and validates on this runtime (else the index silently falls back to the JS loop)', () => {
    expect(createSimdInt8Filter(1)).not.toBeNull();
  });

  it('lays out a tile as four rows interleaved eight components at a time, then scales, errors and norms', () => {
    const stride = 64;
    expect(int8TileBytes(stride)).toBe(4 * 64 + 48);
    expect([0, 1, 2, 3, 4].map((r) => int8RowByte(stride, r))).toEqual([0, 8, 16, 24, 304]);
    expect([0, 7, 8, 9, 63].map(int8ComponentOffset)).toEqual([0, 7, 32, 33, 231]);
    expect([0, 1, 3, 4, 5].map((r) => int8ScaleIndex(stride, r))).toEqual([64, 65, 67, 76 + 64, 76 + 65]);
  });

  it('property: the SIMD kernel keeps exactly the rows and sums of its JS twin, and those are the plain dot products whose bound reaches the floor', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 24 }),
        // Any count, so the last tile is often partial; the unused rows of that tile hold garbage.
        fc.integer({ min: 1, max: 41 }),
        fc.integer({ min: 0, max: 2 ** 32 - 1 }),
        fc.boolean(),
        fc.oneof(fc.constant(-Infinity), fc.constant(Infinity), fc.constant('tie' as const), fc.double({ min: -2, max: 2, noNaN: true })),
        (steps, rows, seed, extremes, floorOf) => {
          const stride = steps * INT8_STEP;
          const tile = int8TileBytes(stride);
          const tiles = Math.ceil(rows / INT8_TILE_ROWS);
          // The same limit quantized-rows.ts applies to the query.
          const qMax = Math.min(32_767, Math.floor((2 ** 31 - 1) / (127 * stride)));
          let s = seed;
          const rand = () => (s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 2 ** 32;
          const pick = (max: number) => (extremes ? (rand() < 0.5 ? -max : max) : Math.round((rand() * 2 - 1) * max));
          // The rows and their terms as plain arrays: the brute force reads these, not the tiles.
          const plain = Array.from({ length: tiles * INT8_TILE_ROWS }, () => Int8Array.from({ length: stride }, () => pick(127)));
          const terms = plain.map(() => [rand() * 1e-3, rand() * 1e-2, rand()].map(Math.fround) as [number, number, number]);
          // The query and output first, the tiles last, ending where the memory ends: the kernel's reads
          // ahead must stay inside the tiles it was given.
          const qOff = 0;
          const outOff = stride * 2;
          const k = createSimdInt8Filter(Math.ceil((outOff + rows * 8 + tiles * tile) / 65_536))!;
          const end = k.memory.buffer.byteLength;
          const m = end - tiles * tile;
          const data = new Int8Array(k.memory.buffer, 0, end);
          const meta = new Float32Array(k.memory.buffer, 0, end / 4);
          plain.forEach((row, r) => {
            row.forEach((x, i) => (data[m + int8RowByte(stride, r) + int8ComponentOffset(i)] = x));
            terms[r]!.forEach((x, j) => (meta[m / 4 + int8ScaleIndex(stride, r) + 4 * j] = x));
          });
          const q = new Int16Array(k.memory.buffer, qOff, stride);
          for (let i = 0; i < stride; i++) q[i] = pick(qMax);
          const th: Int8Threshold = { floor: 0, t: rand() * 1e-4, qNorm: rand(), qErr: rand() * 1e-3, slack: 2 ** -126 };
          const sums = plain.map((row) => row.reduce((acc, x, i) => acc + x * q[i]!, 0));
          const bound = (r: number) => upperBound(sums[r]!, ...terms[r]!, th);
          // 'tie': the floor is exactly one row's upper bound, which must be kept (only bounds below it are skipped).
          const tied = Math.floor(rand() * rows);
          th.floor = floorOf === 'tie' ? bound(tied) : floorOf;

          const got = k.filter(m, qOff, outOff, rows, stride, 7, th);
          const want = new Int32Array(rows * 2);
          const wantN = filterInt8Js(data, meta, stride, m, rows, q, want, 7, th);
          expect(got).toBe(wantN);
          expect(Array.from(new Int32Array(k.memory.buffer, outOff, got * 2))).toEqual(Array.from(want.subarray(0, wantN * 2)));
          const kept: number[] = [];
          for (let r = 0; r < rows; r++) if (!(bound(r) < th.floor)) kept.push(7 + r, sums[r]!);
          expect(Array.from(want.subarray(0, wantN * 2))).toEqual(kept);
          if (floorOf === -Infinity) expect(wantN).toBe(rows);
          if (floorOf === 'tie') expect(kept).toContain(7 + tied);
        },
      ),
      { numRuns: 300 },
    );
  });
});
