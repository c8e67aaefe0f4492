import fc from 'fast-check';
import { Decimal } from 'decimal.js';
import { describe, expect, it } from 'vitest';
import { indentedJsonPieces } from './json-pieces.ts';

const text = (v: unknown) => indentedJsonPieces(v).join('');
/** What writeJsonFile wrote before the pieces: the one string of JSON.stringify. */
const stringified = (v: unknown) => String(JSON.stringify(v, null, 2));

describe('indentedJsonPieces: JSON.stringify(value, null, 2), cut into pieces', () => {
  it('is JSON.stringify\'s text for any JSON value, strings of any code unit included (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 5, stringUnit: 'binary' }), (v) => {
        expect(text(v)).toBe(stringified(v));
      }),
      { numRuns: 500 },
    );
  });

  it('is JSON.stringify\'s text for values it would leave out, null out or convert: undefined, functions, toJSON, boxed values, NaN (property)', () => {
    const odd = fc.constantFrom<unknown>(undefined, () => 1, Symbol('s'), new Decimal('1.50'), new Date(0), new Number(3), new String('é'), NaN, -0, Infinity, new Map([[1, 2]]), Object.create(null), Object.assign(new Array(3), { 0: 1, 2: 3 }), new Array(2));
    const value = fc.letrec<{ v: unknown }>((tie) => ({
      v: fc.oneof({ depthSize: 'small' }, fc.jsonValue({ maxDepth: 1, stringUnit: 'grapheme' }), odd, fc.array(tie('v'), { maxLength: 4 }), fc.dictionary(fc.string({ unit: 'grapheme' }), tie('v'), { maxKeys: 4 })),
    })).v;
    fc.assert(
      fc.property(value, (v) => {
        expect(text(v)).toBe(stringified(v));
      }),
      { numRuns: 500 },
    );
  });

  it('is JSON.stringify\'s text for long lists and objects, which it writes in runs of members (property)', () => {
    const member = fc.jsonValue({ maxDepth: 2, stringUnit: 'grapheme' });
    const long = fc.oneof(fc.array(member, { minLength: 15, maxLength: 80 }), fc.dictionary(fc.string({ unit: 'grapheme' }), member, { minKeys: 15, maxKeys: 80 }));
    fc.assert(
      fc.property(long, fc.constantFrom(0, 1, 2), (v, depth) => {
        // The same long container at the top, as a section, and as an entry of a section.
        const value = depth === 0 ? v : depth === 1 ? { section: v } : { section: [1, v] };
        expect(text(value)).toBe(stringified(value));
      }),
      { numRuns: 300 },
    );
  });

  it('walks a report\'s sections and their entries, so a non-ASCII value stays in a piece of its own', () => {
    const report = { version: 1, workloads: [{ name: 'a', tail: 'ascii' }, { name: 'b', tail: 'Bell–McCaffrey 本日' }], empty: [], none: {} };
    const pieces = indentedJsonPieces(report);
    expect(pieces.join('')).toBe(stringified(report));
    // The second workload's text is one piece; the first's has no non-ASCII character to share it with.
    expect(pieces.filter((p) => /[\u0080-\uffff]/.test(p))).toEqual([stringified(report.workloads[1]).replace(/\n/g, '\n    ')]);
  });

  it('leaves a value JSON cannot hold to JSON.stringify, which refuses it', () => {
    expect(() => indentedJsonPieces({ a: [1, 2n] })).toThrow(/BigInt/);
    const cycle: Record<string, unknown> = {};
    cycle.self = { again: cycle };
    expect(() => indentedJsonPieces(cycle)).toThrow(/circular/);
  });
});
