import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createEmbeddingRows } from './embedding-rows.ts';
import { dotsJs } from './simd-dots.ts';

describe('embedding rows', () => {
  it('grow to what is asked past 2^21 rows of 384 floats (doubling to 2^22 overflowed one 4 GiB memory)', () => {
    const rows = createEmbeddingRows(384, 64);
    // Reserving maps memory the OS commits only when touched: one row is written here.
    rows.reserve(2_200_000);
    const v = Float32Array.from({ length: 384 }, (_, i) => i / 384);
    rows.set(2_199_999, v);
    expect(rows.get(2_199_999)).toEqual(v);
    expect(rows.capacityBytes()).toBeLessThan(2_200_000 * 1.125 * (384 * 4 + 4) + 2 ** 20 * 8);
  });

  it('hold more rows than one 4 GiB memory addresses (2.79M of 384 floats), over several memories', () => {
    const rows = createEmbeddingRows(384, 64);
    const oneMemory = Math.floor((2 ** 32 - 384 * 8) / (384 * 4 + 4));
    expect(rows.rowsPerMemory).toBeLessThanOrEqual(oneMemory);
    rows.reserve(oneMemory + 1_000);
    const v = Float32Array.from({ length: 384 }, (_, i) => (i % 7) - 3);
    rows.set(oneMemory + 999, v);
    rows.set(5, v);
    expect(rows.get(oneMemory + 999)).toEqual(v);
    rows.move(oneMemory + 999, 7);
    expect(rows.get(7)).toEqual(v);
    expect(rows.has(oneMemory + 999)).toBe(false);
  });

  it.each([4, 6])('property (dim %i, SIMD when a multiple of 4): rows spread over memories of a few rows each score exactly as the plain loop, through sets, moves and clears', (dim) => {
    fc.assert(
      fc.property(
        fc.record({
          perMemory: fc.integer({ min: 1, max: 5 }),
          initial: fc.integer({ min: 1, max: 8 }),
          seed: fc.integer({ min: 0, max: 2 ** 31 }),
          ops: fc.array(
            fc.oneof(
              fc.record({ op: fc.constant('set' as const), slot: fc.nat(30) }),
              fc.record({ op: fc.constant('move' as const), from: fc.nat(30), to: fc.nat(30) }),
              fc.record({ op: fc.constant('clear' as const), slot: fc.nat(30) }),
            ),
            { maxLength: 60 },
          ),
        }),
        ({ perMemory, initial, seed, ops }) => {
          let s = seed;
          const rand = () => ((s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 2 ** 32) * 2 - 1;
          const rows = createEmbeddingRows(dim, initial, { chunkBytes: perMemory * dim * 4 });
          expect(rows.rowsPerMemory).toBe(perMemory);
          // The reference: a plain map of slot to vector.
          const ref = new Map<number, Float32Array>();
          // Slots the rows surely have room for (moves stay inside, as the feature index's do).
          let room = initial;
          for (const o of ops) {
            if (o.op === 'set') {
              const v = Float32Array.from({ length: dim }, rand);
              rows.set(o.slot, v);
              ref.set(o.slot, v);
              room = Math.max(room, o.slot + 1);
            } else if (o.op === 'clear') {
              if (o.slot >= room) continue;
              rows.clear(o.slot);
              ref.delete(o.slot);
            } else if (o.op === 'move' && Math.max(o.from, o.to) < room) {
              rows.move(o.from, o.to);
              if (o.from === o.to) continue;
              const v = ref.get(o.from);
              ref.delete(o.to);
              if (v) {
                ref.set(o.to, v);
                ref.delete(o.from);
              }
            }
          }
          expect(rows.count).toBe(ref.size);
          const slots = Math.max(0, ...ref.keys()) + 1;
          const q = Float32Array.from({ length: dim }, rand);
          const got = Array.from(rows.dots(q, slots));
          const one = new Float32Array(1);
          for (let slot = 0; slot < slots; slot++) {
            const v = ref.get(slot);
            expect(rows.has(slot)).toBe(v !== undefined);
            if (!v) continue;
            expect(rows.get(slot)).toEqual(v);
            dotsJs(v, dim, 1, q, one);
            expect(got[slot], `slot ${slot}`).toBe(one[0]);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
