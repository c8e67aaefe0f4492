import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sameWordForm, wordsOf } from './word-forms.ts';

describe('word forms', () => {
  it('reads lower-cased words in order, keeping inner apostrophes, dots and hyphens', () => {
    expect(wordsOf('How do I use pandas.read_csv() in Git-based repos? Don’t!')).toEqual(['how', 'do', 'i', 'use', 'pandas.read_csv', 'in', 'git-based', 'repos', "don't"]);
    expect(wordsOf('')).toEqual([]);
  });
  it('treats regular inflections as one word', () => {
    expect(sameWordForm('datasets', 'dataset')).toBe(true);
    expect(sameWordForm('merged', 'merge')).toBe(true);
    expect(sameWordForm('using', 'use')).toBe(true);
    expect(sameWordForm('copies', 'copy')).toBe(true);
    expect(sameWordForm('pip', 'conda')).toBe(false);
  });
  it('sameWordForm is symmetric and reflexive (property)', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[a-z]{1,10}$/), fc.stringMatching(/^[a-z]{1,10}$/), (x, y) => {
        expect(sameWordForm(x, x)).toBe(true);
        expect(sameWordForm(x, y)).toBe(sameWordForm(y, x));
      }),
    );
  });
});
