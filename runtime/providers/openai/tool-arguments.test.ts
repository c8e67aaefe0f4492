import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { INVALID_ARGUMENTS_KEY, invalidToolArguments, parseToolArguments, serializeToolArguments } from './tool-arguments.ts';

const jsonObject = fc.dictionary(fc.string().filter((k) => k !== INVALID_ARGUMENTS_KEY && k !== '__proto__'), fc.jsonValue());

describe('tool-call arguments', () => {
  it('round-trips any JSON object', () => {
    fc.assert(
      fc.property(jsonObject, (o) => {
        const input = parseToolArguments(serializeToolArguments(o));
        expect(input).toEqual(JSON.parse(JSON.stringify(o)));
        expect(invalidToolArguments(input)).toBeUndefined();
      }),
    );
  });

  it('keeps any text that is not a JSON object raw, and sends it back byte for byte', () => {
    const notAnObject = fc.string().filter((s) => {
      if (s.trim() === '') return false;
      try {
        const v: unknown = JSON.parse(s);
        return typeof v !== 'object' || v === null || Array.isArray(v);
      } catch {
        return true;
      }
    });
    fc.assert(
      fc.property(notAnObject, (raw) => {
        const input = parseToolArguments(raw);
        expect(invalidToolArguments(input)).toBe(raw);
        expect(serializeToolArguments(input)).toBe(raw);
      }),
    );
  });

  it('reads empty text as no arguments and accepts an already-parsed object', () => {
    expect(parseToolArguments('')).toEqual({});
    expect(parseToolArguments('  ')).toEqual({});
    expect(parseToolArguments({ a: 1 })).toEqual({ a: 1 });
    expect(parseToolArguments('[1,2]')).toEqual({ [INVALID_ARGUMENTS_KEY]: '[1,2]' });
  });
});
