import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { textMemo } from './text-memo.ts';

describe('textMemo (a pure function of a string, kept for the last N texts)', () => {
  it('answers what the function answers, for any texts in any order (seeded)', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 12 }), { maxLength: 60 }), fc.integer({ min: 1, max: 8 }), (texts, max) => {
        const fn = (t: string) => `${t.length}:${[...t].reverse().join('')}`;
        const memo = textMemo(fn, max);
        for (const t of texts) expect(memo(t)).toBe(fn(t));
      }),
      { seed: 20261129, numRuns: 300 },
    );
  });

  it('calls the function once per text while it is kept, again after it was pushed out (first in, first out)', () => {
    const calls: string[] = [];
    const memo = textMemo((t: string) => (calls.push(t), t.length), 2);
    memo('a');
    memo('bb');
    memo('a');
    memo('bb');
    expect(calls).toEqual(['a', 'bb']);
    memo('ccc'); // pushes out 'a', the first in
    memo('bb');
    memo('a');
    expect(calls).toEqual(['a', 'bb', 'ccc', 'a']);
  });

  it('keeps an undefined answer too, and refuses a bound below 1', () => {
    let calls = 0;
    const memo = textMemo(() => (calls++, undefined), 4);
    memo('x');
    memo('x');
    expect(calls).toBe(1);
    expect(() => textMemo((t) => t, 0)).toThrow(RangeError);
  });
});
