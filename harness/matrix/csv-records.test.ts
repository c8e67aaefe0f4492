import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CsvStreamParser, CsvSyntaxError, csvRecordsOf, parseCsv } from './csv-records.ts';

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

describe('CsvStreamParser and csvRecordsOf', () => {
  it('reads any text cut into any pieces exactly as the whole text (a cut inside a doubled quote or a CRLF included)', () => {
    const text = fc.string({ unit: fc.constantFrom('a', ',', '"', '""', '\n', '\r\n', 'é') });
    fc.assert(
      fc.property(fc.array(fc.array(text, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 5 }), fc.array(fc.nat(), { maxLength: 6 }), (rows, cuts) => {
        const whole = write(rows, '\n');
        const at = [...new Set(cuts.map((c) => c % (whole.length + 1)))].sort((x, y) => x - y);
        const p = new CsvStreamParser();
        const got = [];
        let from = 0;
        for (const c of at) {
          got.push(...p.push(whole.slice(from, c)));
          from = c;
        }
        got.push(...p.push(whole.slice(from), true));
        expect(got).toEqual(parseCsv(whole));
      }),
    );
  });

  it('streams a file, and refuses bytes that are not UTF-8 at their line (a decoder would make them U+FFFD)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'csv-stream-'));
    try {
      const good = join(dir, 'good.csv');
      writeFileSync(good, 'prompt,a\n"caf\u00e9 \u2603",True\n');
      const recs = [];
      for await (const r of csvRecordsOf(good)) recs.push(r);
      expect(recs.map((r) => r.fields)).toEqual([['prompt', 'a'], ['caf\u00e9 \u2603', 'True']]);
      const bad = join(dir, 'bad.csv');
      writeFileSync(bad, Buffer.concat([Buffer.from('prompt,a\n"ok",True\n"caf'), Buffer.from([0xe9]), Buffer.from('",False\n')]));
      const read = async () => {
        for await (const _ of csvRecordsOf(bad)) void _;
      };
      await expect(read()).rejects.toMatchObject({ line: 3, problem: 'not valid UTF-8 (byte offset 23, byte 0xe9)' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
