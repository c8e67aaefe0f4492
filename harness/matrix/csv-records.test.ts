import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CsvSyntaxError, parseCsv } from './csv-records.ts';

/** RFC 4180 writing: quote a field that holds a comma, quote, CR or LF (and always the empty one, so a lone empty record survives). */
const field = (s: string) => (/[",\r\n]/.test(s) || s === '' ? `"${s.replace(/"/g, '""')}"` : s);
const write = (rows: string[][], eol: string) => rows.map((r) => r.map(field).join(',')).join(eol) + eol;

describe('parseCsv', () => {
  it('reads back any table RFC 4180 writes, with LF or CRLF line ends', () => {
    const text = fc.string({ unit: fc.constantFrom('a', 'b', ',', '"', '\n', '\r\n', ' ', 'é') });
    fc.assert(
      fc.property(fc.array(fc.array(text, { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 6 }), fc.constantFrom('\n', '\r\n'), (rows, eol) => {
        expect(parseCsv(write(rows, eol)).map((r) => r.fields)).toEqual(rows);
      }),
    );
  });

  it('gives each record the line it starts on, counting newlines inside quoted fields', () => {
    const recs = parseCsv('prompt,a\n"line 1\nline 2\nline 3",True\nq,False\n');
    expect(recs.map((r) => r.line)).toEqual([1, 2, 5]);
  });

  it('drops a byte-order mark', () => {
    expect(parseCsv('\ufeffprompt,x\n')[0]!.fields).toEqual(['prompt', 'x']);
  });

  it('refuses an unclosed quote at the line it opens, and text after a closing quote', () => {
    expect(() => parseCsv('a,b\n1,2\n"open,3\n')).toThrow(new CsvSyntaxError(3, 'a quoted field is never closed'));
    expect(() => parseCsv('a,b\n"x"y,2\n')).toThrow(/line 2: unexpected 'y' after a closing quote/);
  });
});
