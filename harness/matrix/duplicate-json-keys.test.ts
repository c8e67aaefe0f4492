import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { firstDuplicateKey } from './duplicate-json-keys.ts';

describe('firstDuplicateKey', () => {
  it('finds no repeat in any JSON that JSON.stringify wrote (its objects cannot repeat a key), at any indentation', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.constantFrom(0, 1, 2, '\t'), (v, indent) => {
        expect(firstDuplicateKey(JSON.stringify(v, null, indent))).toBeNull();
      }),
    );
  });

  it('finds a key repeated in an object anywhere in a document, with the object path and both lines', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.string(), fc.jsonValue(), fc.jsonValue(), (around, key, a, b) => {
        const inner = `{${JSON.stringify(key)}: ${JSON.stringify(a)},\n ${JSON.stringify(key)}: ${JSON.stringify(b)}}`;
        const text = `{"before": ${JSON.stringify(around)},\n"list": [1, {"x": ${inner}}]}`;
        JSON.parse(text);
        // JSON.stringify writes no raw newline, so the first key is on line 2 and its repeat on line 3.
        expect(firstDuplicateKey(text)).toEqual({ path: 'list[1].x', key, line: 3, firstLine: 2 });
      }),
    );
  });

  it('reads keys with escapes as their values, and skips strings that look like keys', () => {
    const text = '{"a": "\\"b\\": 1, \\"b\\"",\n "k\\u0041": 1,\n "kA": 2}';
    expect(firstDuplicateKey(text)).toEqual({ path: '', key: 'kA', line: 3, firstLine: 2 });
    expect(firstDuplicateKey('{"a": ["b", "b"], "c": {"b": 1}, "d": {"b": 2}}')).toBeNull();
  });

  it('checks only the objects the predicate accepts', () => {
    const text = '{"skip": {"a": 1, "a": 2}, "keep": [{"a": 1}, {"a": 1, "a": 2}]}';
    expect(firstDuplicateKey(text, (p) => p.startsWith('keep'))).toEqual({ path: 'keep[1]', key: 'a', line: 1, firstLine: 1 });
    expect(firstDuplicateKey(text, (p) => p === 'elsewhere')).toBeNull();
  });
});
