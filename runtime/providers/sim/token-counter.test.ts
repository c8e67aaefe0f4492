import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Tiktoken } from 'js-tiktoken/lite';
import o200kBase from 'js-tiktoken/ranks/o200k_base';
import { createTiktokenCounter } from './token-counter.ts';

const enc = new Tiktoken(o200kBase);

describe('createTiktokenCounter', () => {
  it('counts exactly what o200k_base encodes, memoized or not, under eviction pressure', () => {
    const counter = createTiktokenCounter({ maxEntries: 5 });
    fc.assert(
      fc.property(fc.array(fc.string({ unit: 'grapheme', maxLength: 40 }), { minLength: 1, maxLength: 20 }), (texts) => {
        for (const t of [...texts, ...texts]) expect(counter.count(t)).toBe(enc.encode(t, [], []).length);
      }),
    );
  });

  it('treats special-token text in tool output as ordinary text rather than throwing', () => {
    expect(createTiktokenCounter().count('log: <|endoftext|> done')).toBeGreaterThan(3);
  });
});
