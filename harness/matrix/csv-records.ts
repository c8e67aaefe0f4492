// A small RFC 4180 CSV reader: quoted fields may hold commas, doubled quotes and newlines. It reads text
// in pieces (CsvStreamParser) so a CSV of any size streams through in bounded memory; parseCsv is the
// whole-text form of the same parser.
import { createReadStream } from 'node:fs';
import { firstInvalidUtf8Offset } from '../workloads/utf8.ts';

/** One CSV record and the 1-based line of the file it starts on. */
export interface CsvRecord {
  fields: string[];
  line: number;
}

/** A CSV syntax problem at a line (the caller adds the file name). */
export class CsvSyntaxError extends Error {
  constructor(
    readonly line: number,
    readonly problem: string,
    /** How to fix it, when it is not the CSV syntax itself (a bad encoding). */
    readonly fix?: string,
  ) {
    super(`line ${line}: ${problem}`);
    this.name = 'CsvSyntaxError';
  }
}

function newlines(s: string): number {
  let k = 0;
  for (let i = s.indexOf('\n'); i >= 0; i = s.indexOf('\n', i + 1)) k++;
  return k;
}

/**
 * Reads one record of `text` from `i` (on line `line`). Null when nothing is left, or when the record may
 * go on past the end of `text` and more is to come (`final` false): the caller keeps the rest and retries.
 */
function recordAt(text: string, i: number, line: number, final: boolean): { record: CsvRecord; next: number; nextLine: number } | null {
  const n = text.length;
  if (i >= n) return null;
  const start = line;
  const fields: string[] = [];
  let field = '';
  let atFieldStart = true;
  while (i < n) {
    const c = text[i]!;
    if (atFieldStart && c === '"') {
      const opened = line;
      i += 1;
      // Whole runs between quotes are sliced, not built a character at a time: a large CSV makes far less garbage.
      for (;;) {
        const q = text.indexOf('"', i);
        if (q < 0) {
          if (!final) return null;
          throw new CsvSyntaxError(opened, 'a quoted field is never closed');
        }
        const run = text.slice(i, q);
        field += run;
        line += newlines(run);
        // A quote at the end of a piece may be the first of a doubled one: wait for the next piece.
        if (q + 1 >= n && !final) return null;
        if (text[q + 1] === '"') {
          field += '"';
          i = q + 2;
          continue;
        }
        i = q + 1;
        break;
      }
      const next = text[i];
      if (next === undefined && !final) return null;
      if (next !== undefined && next !== ',' && next !== '\n' && next !== '\r') throw new CsvSyntaxError(line, `unexpected '${next}' after a closing quote`);
      atFieldStart = false;
      continue;
    }
    if (c === ',') {
      fields.push(field);
      field = '';
      atFieldStart = true;
      i += 1;
    } else if (c === '\n' || c === '\r') {
      // A CR at the end of a piece may be half of a CRLF.
      if (c === '\r' && i + 1 >= n && !final) return null;
      i += c === '\r' && text[i + 1] === '\n' ? 2 : 1;
      fields.push(field);
      return { record: { fields, line: start }, next: i, nextLine: line + 1 };
    } else {
      // An unquoted run up to the next comma or line end.
      let j = i + 1;
      while (j < n && text[j] !== ',' && text[j] !== '\n' && text[j] !== '\r') j++;
      field += text.slice(i, j);
      atFieldStart = false;
      i = j;
    }
  }
  if (!final) return null;
  if (field === '' && fields.length === 0) return { record: { fields: [''], line: start }, next: n, nextLine: line };
  fields.push(field);
  return { record: { fields, line: start }, next: n, nextLine: line };
}

/** A CSV parser fed text in pieces: each `push` returns the records completed so far. */
export class CsvStreamParser {
  private rest = '';
  private line = 1;
  private started = false;

  /** Adds the next piece of text; `final` marks the end of the input. */
  push(text: string, final = false): CsvRecord[] {
    let buf = this.rest + text;
    // Drop a UTF-8 byte-order mark: spreadsheets write one, and it would glue itself to the first column name.
    if (!this.started && buf.length > 0) {
      this.started = true;
      if (buf.charCodeAt(0) === 0xfeff) buf = buf.slice(1);
    }
    const out: CsvRecord[] = [];
    let i = 0;
    for (;;) {
      const r = recordAt(buf, i, this.line, final);
      if (!r) break;
      out.push(r.record);
      i = r.next;
      this.line = r.nextLine;
    }
    this.rest = buf.slice(i);
    return out;
  }
}

/** Splits CSV text into records (header included); a blank final line is not a record. */
export function parseCsv(text: string): CsvRecord[] {
  return new CsvStreamParser().push(text, true);
}

/** Where `buf` stops holding only whole UTF-8 sequences: a sequence cut at the end waits for the next piece. */
function wholeSequencesEnd(buf: Uint8Array): number {
  for (let back = 1; back <= Math.min(3, buf.length); back++) {
    const b = buf[buf.length - back]!;
    if ((b & 0xc0) === 0x80) continue;
    const need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    return need > back ? buf.length - back : buf.length;
  }
  return buf.length;
}

function newlinesIn(buf: Uint8Array, end: number): number {
  let k = 0;
  for (let i = buf.indexOf(10); i >= 0 && i < end; i = buf.indexOf(10, i + 1)) k++;
  return k;
}

// A piece's records live until the last of them is imported. From a 1 MiB piece (about 4,000 rows) they outlived
// the young generation and piled up in the old one as garbage, 358 MB peak RSS for 400,000 rows; 64 KiB pieces
// die young (294 MB). Smaller ones cost more Buffers than they save.
const PIECE_BYTES = 1 << 16;

/**
 * The records of a CSV file, read in 64 KiB pieces: memory holds one piece and the record in progress,
 * whatever the file's size. Bytes that are not UTF-8 are a CsvSyntaxError at their line (a decoder would
 * turn them into U+FFFD without a word). `onBytes` hears the bytes read so far after each piece.
 */
export async function* csvRecordsOf(file: string, onBytes?: (bytesRead: number) => void): AsyncGenerator<CsvRecord> {
  const parser = new CsvStreamParser();
  let carry: Buffer = Buffer.alloc(0);
  let offset = 0;
  let line = 1;
  const refuse = (buf: Uint8Array, at: number) =>
    new CsvSyntaxError(line + newlinesIn(buf, at), `not valid UTF-8 (byte offset ${offset + at}, byte 0x${buf[at]!.toString(16).padStart(2, '0')})`, 'save the file as UTF-8, e.g. iconv -f latin1 -t utf-8');
  for await (const piece of createReadStream(file, { highWaterMark: PIECE_BYTES }) as AsyncIterable<Buffer>) {
    const buf = carry.length ? Buffer.concat([carry, piece]) : piece;
    const end = wholeSequencesEnd(buf);
    const head = buf.subarray(0, end);
    const bad = firstInvalidUtf8Offset(head);
    if (bad !== null) throw refuse(head, bad);
    line += newlinesIn(head, head.length);
    offset += end;
    carry = Buffer.from(buf.subarray(end));
    onBytes?.(offset);
    yield* parser.push(head.toString('utf8'));
  }
  if (carry.length) throw refuse(carry, 0);
  yield* parser.push('', true);
}
