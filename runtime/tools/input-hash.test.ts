import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson, inputDigest } from './input-hash.ts';

/** The same value with every object's keys in reverse order. */
function reverseKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(reverseKeys);
  if (v === null || typeof v !== 'object') return v;
  return Object.fromEntries(Object.entries(v as Record<string, unknown>).reverse().map(([k, x]) => [k, reverseKeys(x)]));
}

describe('canonicalJson / inputDigest', () => {
  it('hashes equal inputs equally whatever their key order', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        expect(canonicalJson(reverseKeys(v))).toBe(canonicalJson(v));
        expect(inputDigest(reverseKeys(v))).toEqual(inputDigest(v));
      }),
    );
  });

  it('round-trips through JSON.parse to the same value', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        expect(JSON.parse(canonicalJson(v))).toEqual(JSON.parse(JSON.stringify(v)));
      }),
    );
  });

  it('distinguishes different inputs and reports the UTF-8 size', () => {
    expect(canonicalJson({ b: 1, a: [{ d: 'é', c: null }] })).toBe('{"a":[{"c":null,"d":"é"}],"b":1}');
    expect(inputDigest({ path: 'a' }).input_hash).not.toBe(inputDigest({ path: 'b' }).input_hash);
    expect(inputDigest({ p: 'é' }).input_size_bytes).toBe(Buffer.byteLength('{"p":"é"}'));
    expect(inputDigest({ p: 'x' }).input_hash).toMatch(/^[0-9a-f]{64}$/);
  });
});
