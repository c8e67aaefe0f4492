import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createLatestFirstMap } from './latest-first-map.ts';

type Op = { op: 'set'; key: number; value: number } | { op: 'get' | 'has' | 'delete'; key: number };
const arbOp: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ op: fc.constant('set' as const), key: fc.nat(4), value: fc.integer() }),
  fc.record({ op: fc.constantFrom('get' as const, 'has' as const, 'delete' as const), key: fc.nat(4) }),
);

describe('latest-first map', () => {
  it('property: answers every get, has, delete and size as a Map does', () => {
    fc.assert(
      fc.property(fc.array(arbOp, { maxLength: 80 }), (ops) => {
        const m = createLatestFirstMap<number, number>();
        const ref = new Map<number, number>();
        for (const o of ops) {
          if (o.op === 'set') {
            m.set(o.key, o.value);
            ref.set(o.key, o.value);
          } else expect(m[o.op](o.key)).toEqual(ref[o.op](o.key));
          expect(m.size).toBe(ref.size);
        }
      }),
      { numRuns: 500 },
    );
  });
});
