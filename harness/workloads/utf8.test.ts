import { isUtf8 } from 'node:buffer';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { firstInvalidUtf8Offset, lineAndColumnOfByte } from './utf8.ts';

describe('firstInvalidUtf8Offset', () => {
  it('is null for any text encoded as UTF-8', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (s) => {
        expect(firstInvalidUtf8Offset(Buffer.from(s, 'utf8'))).toBeNull();
      }),
    );
  });

  it('agrees with Node on arbitrary bytes, and everything before the offset is valid', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        const at = firstInvalidUtf8Offset(bytes);
        expect(at === null).toBe(isUtf8(bytes));
        if (at !== null) {
          expect(isUtf8(bytes.subarray(0, at))).toBe(true);
          expect(at).toBeLessThan(bytes.length);
        }
      }),
    );
  });

  it('points at the first bad byte of a Latin-1 file, with its line and column', () => {
    const bytes = Buffer.from('name: caf\xe9\nx: 1\n', 'latin1');
    expect(firstInvalidUtf8Offset(bytes)).toBe(9);
    expect(lineAndColumnOfByte(bytes, 9)).toEqual({ line: 1, column: 10 });
    const second = Buffer.concat([Buffer.from('a: 1\nb: '), Buffer.from([0xed, 0xa0, 0x80])]);
    expect(firstInvalidUtf8Offset(second)).toBe(8); // an encoded surrogate
    expect(lineAndColumnOfByte(second, 8)).toEqual({ line: 2, column: 4 });
    expect(firstInvalidUtf8Offset(Buffer.from([0xc0, 0xaf]))).toBe(0); // overlong '/'
    expect(firstInvalidUtf8Offset(Buffer.from([0x61, 0xe2, 0x82]))).toBe(1); // truncated
  });
});
