import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EMPTY_MEAN, welfordAdd, welfordRemove, welfordReplace, type RunningMean } from './index.ts';

type Op = { kind: 'add'; x: number } | { kind: 'remove'; at: number } | { kind: 'replace'; at: number; x: number };

const score = fc.double({ min: 0, max: 1, noNaN: true });
const ops = fc.array(
  fc.oneof(
    fc.record({ kind: fc.constant('add' as const), x: score }),
    fc.record({ kind: fc.constant('remove' as const), at: fc.nat() }),
    fc.record({ kind: fc.constant('replace' as const), at: fc.nat(), x: score }),
  ),
  { maxLength: 200 },
);

describe('Welford streaming mean', () => {
  it('after any adds, rollbacks and replacements equals the batch mean of the values held (within 1e-9)', () => {
    fc.assert(
      fc.property(ops, (list: Op[]) => {
        let s: RunningMean = EMPTY_MEAN;
        const held: number[] = [];
        for (const op of list) {
          if (op.kind === 'add') {
            s = welfordAdd(s, op.x);
            held.push(op.x);
          } else if (held.length > 0) {
            const i = op.at % held.length;
            if (op.kind === 'remove') {
              s = welfordRemove(s, held[i]!);
              held.splice(i, 1);
            } else {
              s = welfordReplace(s, held[i]!, op.x);
              held[i] = op.x;
            }
          }
        }
        expect(s.count).toBe(held.length);
        const batch = held.length ? held.reduce((a, b) => a + b, 0) / held.length : 0;
        expect(Math.abs(s.mean - batch)).toBeLessThanOrEqual(1e-9);
      }),
    );
  });

  it('refuses to remove from an empty mean', () => {
    expect(() => welfordRemove(EMPTY_MEAN, 0.5)).toThrow(RangeError);
  });
});
