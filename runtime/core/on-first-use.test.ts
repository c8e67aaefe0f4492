import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { onFirstUse } from './on-first-use.ts';

describe('onFirstUse', () => {
  it('makes each value at its first read, once', () => {
    const calls: string[] = [];
    const o = onFirstUse({ a: () => (calls.push('a'), { n: 1 }), b: () => (calls.push('b'), 2) });
    expect(calls).toEqual([]);
    const first = o.a;
    expect(o.a).toBe(first);
    expect(calls).toEqual(['a']);
    expect(o.b).toBe(2);
    expect(calls).toEqual(['a', 'b']);
    expect(Object.keys(o)).toEqual(['a', 'b']);
  });

  it('a maker that throws is asked again at the next read', () => {
    let n = 0;
    const o = onFirstUse({
      x: () => {
        n++;
        if (n === 1) throw new Error('not yet');
        return n;
      },
    });
    expect(() => o.x).toThrow('not yet');
    expect(o.x).toBe(2);
    expect(o.x).toBe(2);
  });

  it('reads as the eager object would, in any order of reads', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 4 }), { maxLength: 20 }), (reads) => {
        const made = [0, 0, 0, 0, 0];
        const makers = Object.fromEntries(made.map((_, i) => [`k${i}`, () => (made[i]!++, `v${i}`)]));
        const o = onFirstUse(makers);
        for (const i of reads) expect(o[`k${i}`]).toBe(`v${i}`);
        expect(made).toEqual(made.map((_, i) => (reads.includes(i) ? 1 : 0)));
      }),
    );
  });
});

describe('onFirstUse, once made', () => {
  it('keeps the value as a plain property: no getter is left to run at later reads', () => {
    const o = onFirstUse({ a: () => 1 });
    expect(Object.getOwnPropertyDescriptor(o, 'a')?.get).toBeTypeOf('function');
    expect(o.a).toBe(1);
    expect(Object.getOwnPropertyDescriptor(o, 'a')).toEqual({ value: 1, enumerable: true, writable: false, configurable: false });
  });
});
