// The tables analyze and bench report print, drawn directly when every cell is plain text: cli-table3 measured
// each cell through string-width (a fresh ANSI regex per call) and took a fifth of `analyze`. Tables holding
// anything else (wide or emoji characters, escapes, ragged rows) are still drawn by cli-table3; a property
// test holds the two drawings byte for byte equal.

/**
 * Text whose every character cli-table3 (string-width) counts as one column and none of which is an emoji,
 * ANSI escape or control character: ASCII, Latin-1 and Latin Extended, Greek (ε), most general punctuation
 * (dashes, quotes, bullets, ellipsis), mathematical operators (− ≥ ≤), and newlines between a cell's lines.
 */
const ONE_COLUMN_TEXT = /^[\n\x20-\x7e\u00a0-\u00a8\u00aa-\u00ad\u00af-\u02ff\u0370-\u03ff\u2010-\u2027\u2030-\u203b\u203d-\u2048\u204a-\u205e\u2200-\u22ff]*$/;

/** True when each character of `text` takes one terminal column (see ONE_COLUMN_TEXT). */
export function isOneColumnText(text: string): boolean {
  return ONE_COLUMN_TEXT.test(text);
}

/**
 * Characters in a line of one-column text (code points, as a terminal counts it): its UTF-16 length, since
 * ONE_COLUMN_TEXT holds no surrogate. Walking the line's code points cost an iterator step per character of
 * every cell, drawn and measured (most of a report table's allocation, in code that runs once).
 */
const length = (line: string): number => line.length;

/** A plain table measured once: each cell's lines (the heads' first) and each column's widest line. */
export interface MeasuredPlainTable {
  readonly lines: readonly (readonly (readonly string[])[])[];
  readonly widths: readonly number[];
}

/** `heads` and `rows` split into lines and measured, or null when renderPlainTable would refuse them (not plain, or ragged). */
export function measurePlainTable(heads: readonly string[], rows: readonly (readonly string[])[]): MeasuredPlainTable | null {
  if (heads.length === 0) return null;
  const table = [heads, ...rows];
  for (const row of table) {
    if (row.length !== heads.length) return null;
    for (const cell of row) if (!isOneColumnText(cell)) return null;
  }
  const lines = table.map((row) => row.map((cell) => cell.split('\n')));
  const widths = heads.map((_, c) => Math.max(...lines.map((row) => Math.max(...row[c]!.map(length)))));
  return { lines, widths };
}

/**
 * The drawing of a measured table's columns `columns` (all, in order, by default), as renderPlainTable draws a
 * table of those columns alone: fitting draws the kept columns without splitting and measuring each cell again.
 */
export function drawPlainTable(table: MeasuredPlainTable, rightAligned: readonly boolean[], columns: readonly number[] = table.widths.map((_, c) => c)): string {
  const widths = columns.map((c) => table.widths[c]!);
  const rule = (left: string, mid: string, right: string) => left + widths.map((w) => '─'.repeat(w + 2)).join(mid) + right;
  const out = [rule('┌', '┬', '┐')];
  for (const all of table.lines) {
    const row = columns.map((c) => all[c]!);
    const height = Math.max(...row.map((cell) => cell.length));
    for (let l = 0; l < height; l++) {
      const cells = row.map((cell, k) => {
        const text = cell[l] ?? '';
        const pad = ' '.repeat(widths[k]! - length(text));
        return ` ${rightAligned[columns[k]!] ? pad + text : text + pad} `;
      });
      out.push(`│${cells.join('│')}│`);
    }
  }
  out.push(rule('└', '┴', '┘'));
  return out.join('\n');
}

/**
 * The table cli-table3 draws for `heads` and `rows` (compact, no row rules, one space of padding each
 * side), or null when a cell is not one-column text or a row does not have a cell per column.
 */
export function renderPlainTable(heads: readonly string[], rightAligned: readonly boolean[], rows: readonly (readonly string[])[]): string | null {
  const table = measurePlainTable(heads, rows);
  return table && drawPlainTable(table, rightAligned);
}
