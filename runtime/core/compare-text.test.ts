import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { compareText } from './compare-text.ts';

const sign = (n: number) => Math.sign(n);

describe('compareText', () => {
  afterEach(() => vi.restoreAllMocks());

  it('orders as localeCompare does, plain names and any other text alike', () => {
    // Plain characters plus neighbours whose collation differs from their code points ('_', ':', upper case).
    const char = fc.constantFrom(...'abcxyz0189-./_:AZ é'.split(''));
    fc.assert(
      fc.property(fc.string({ unit: char, maxLength: 8 }), fc.string({ unit: char, maxLength: 8 }), (a, b) => {
        expect(sign(compareText(a, b))).toBe(sign(a.localeCompare(b)));
      }),
      { seed: 28, numRuns: 3000 },
    );
  });

  it('orders every pair of single plain characters as localeCompare does', () => {
    const plain = 'abcdefghijklmnopqrstuvwxyz0123456789-./'.split('');
    for (const a of plain) for (const b of plain) expect(sign(compareText(a, b)), `${a} vs ${b}`).toBe(sign(a.localeCompare(b)));
  });

  it('compares plain names without localeCompare (whose first call builds the collator)', () => {
    const spy = vi.spyOn(String.prototype, 'localeCompare');
    expect(['fix-a-bug-small', 'claude-sonnet-4-6', 'fix-a-bug', 'gpt-4.1/mini'].sort(compareText)).toEqual(['claude-sonnet-4-6', 'fix-a-bug', 'fix-a-bug-small', 'gpt-4.1/mini']);
    expect(spy).not.toHaveBeenCalled();
    expect(compareText('Fix_A', 'fix-a')).toBe('Fix_A'.localeCompare('fix-a'));
    expect(spy).toHaveBeenCalledTimes(2);
  });
});
