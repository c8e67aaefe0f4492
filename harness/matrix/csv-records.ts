// A small RFC 4180 CSV reader: quoted fields may hold commas, doubled quotes and newlines.

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
  ) {
    super(`line ${line}: ${problem}`);
    this.name = 'CsvSyntaxError';
  }
}

/** Splits CSV text into records (header included); a blank final line is not a record. */
export function parseCsv(text: string): CsvRecord[] {
  const records: CsvRecord[] = [];
  let fields: string[] = [];
  let field = '';
  let line = 1;
  let start = 1;
  let i = 0;
  const n = text.length;
  // Drop a UTF-8 byte-order mark: spreadsheets write one, and it would glue itself to the first column name.
  if (text.charCodeAt(0) === 0xfeff) i = 1;
  let atFieldStart = true;
  const endRecord = () => {
    fields.push(field);
    records.push({ fields, line: start });
    fields = [];
    field = '';
    atFieldStart = true;
  };
  while (i < n) {
    const c = text[i]!;
    if (atFieldStart && c === '"') {
      const opened = line;
      i += 1;
      for (;;) {
        if (i >= n) throw new CsvSyntaxError(opened, 'a quoted field is never closed');
        const q = text[i]!;
        if (q === '"') {
          if (text[i + 1] === '"') {
            field += '"';
            i += 2;
            continue;
          }
          i += 1;
          break;
        }
        if (q === '\n') line += 1;
        field += q;
        i += 1;
      }
      const next = text[i];
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
      i += c === '\r' && text[i + 1] === '\n' ? 2 : 1;
      endRecord();
      line += 1;
      start = line;
    } else {
      field += c;
      atFieldStart = false;
      i += 1;
    }
  }
  if (field !== '' || fields.length > 0) endRecord();
  return records;
}
