import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { oneWordSwap, sameWordForm, wordsOf } from './one-word-swap.ts';

const swap = (a: string, b: string) => oneWordSwap(wordsOf(a), wordsOf(b));

describe('one-word swap', () => {
  it('finds the lower-case tool names the entity reading cannot see', () => {
    expect(swap('How do I install numpy with pip?', 'How do I install numpy with conda?')).toEqual(['pip', 'conda']);
    expect(swap('What does the git command git rebase do?', 'What does the git command git merge do?')).toEqual(['rebase', 'merge']);
  });
  it('ignores function words, inflections and case', () => {
    expect(swap('How do I install numpy with pip?', 'How can I install numpy with pip?')).toBeNull();
    expect(swap('What is a dataset card?', 'What is the dataset card?')).toBeNull();
    expect(swap('How do I merge the datasets?', 'How do I merge the dataset?')).toBeNull();
    expect(swap('How do I use the loader?', 'How do I using the loader?')).toBeNull();
    expect(swap('Which Datasets can I stream?', 'Which datasets can I stream?')).toBeNull();
  });
  it('says nothing about texts that differ in length or in two places', () => {
    expect(swap('How do I install numpy with pip?', 'How do I install numpy quickly with pip?')).toBeNull();
    expect(swap('How do I install numpy with pip?', 'How do I install pandas with conda?')).toBeNull();
    expect(swap('', '')).toBeNull();
  });
  it('sameWordForm is symmetric and reflexive (property)', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[a-z]{1,10}$/), fc.stringMatching(/^[a-z]{1,10}$/), (x, y) => {
        expect(sameWordForm(x, x)).toBe(true);
        expect(sameWordForm(x, y)).toBe(sameWordForm(y, x));
      }),
    );
  });
  it('is symmetric, and finds a swap exactly when one content word was replaced (property)', () => {
    const word = fc.constantFrom('install', 'numpy', 'pip', 'conda', 'the', 'with', 'rebase', 'merge', 'branch', 'how', 'do', 'i', 'table', 'column');
    fc.assert(
      fc.property(fc.array(word, { minLength: 1, maxLength: 12 }), fc.nat(), word, (ws, k, w) => {
        const i = k % ws.length;
        const other = ws.map((x, j) => (j === i ? w : x));
        const found = oneWordSwap(ws, other);
        expect(oneWordSwap(other, ws)).toEqual(found && [found[1], found[0]]);
        expect(oneWordSwap(ws, ws)).toBeNull();
        if (found) expect(found).toEqual([ws[i], w]);
      }),
    );
  });
});
