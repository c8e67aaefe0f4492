import { createRequire } from 'node:module';
import type CliTable from 'cli-table3';
import { drawPlainTable, isOneColumnText, measurePlainTable, renderPlainTable, type MeasuredPlainTable } from './plain-table.ts';

/** A column of a table that must fit a terminal. */
export interface FitColumn {
  head: string;
  /** 0: always shown; a higher number is hidden sooner when the table is too wide. */
  drop: number;
  /** Right-align (numbers). */
  numeric?: boolean;
  /** Long cells of this column (names) may wrap onto several lines. */
  wrap?: boolean;
}

/** A rendered table and the columns left out to make it fit, in the order they were hidden. */
export interface FittedTable {
  text: string;
  hidden: string[];
}

/** The narrowest a wrapping column gets before the table gives up on fitting and wraps everything. */
const MIN_WRAP = 22;
// cli-table3 adds one space of padding each side and one border character per column, plus the closing border.
const PAD = 2;

function render(columns: readonly FitColumn[], rows: readonly string[][]): string {
  const plain = renderPlainTable(
    columns.map((c) => c.head),
    columns.map((c) => c.numeric === true),
    rows,
  );
  if (plain !== null) return plain;
  // cli-table3 (CommonJS) loads only for a table that holds more than plain text.
  const Table = createRequire(import.meta.url)('cli-table3') as typeof CliTable;
  const t = new Table({
    head: columns.map((c) => c.head),
    colAligns: columns.map((c) => (c.numeric ? 'right' : 'left')),
    // No colours and ASCII-safe borders so the output pastes cleanly into decks and CI logs.
    style: { head: [], border: [], compact: true },
    chars: { mid: '', 'left-mid': '', 'mid-mid': '', 'right-mid': '' },
  });
  for (const r of rows) t.push([...r]);
  return t.toString();
}

/** Code points in `line` (what `[...line].length` counts), without the array when it holds no surrogate. */
const codePoints = (line: string): number => (/[\uD800-\uDFFF]/.test(line) ? [...line].length : line.length);

/** The widest line of a rendering, in characters. */
export function maxLineWidth(text: string): number {
  return text.split('\n').reduce((m, l) => Math.max(m, codePoints(l)), 0);
}

/**
 * maxLineWidth(render(columns, rows)) without rendering, when every head and cell is ONE_COLUMN_TEXT and each
 * row has a cell per column (null otherwise): a left border, then each column's widest line plus its padding
 * and border. Fitting tries one rendering per hidden column, which was most of analyze's table time.
 */
export function plainTableWidth(columns: readonly FitColumn[], rows: readonly string[][]): number | null {
  const widths = plainColumnWidths(columns, rows);
  return widths === null ? null : widths.reduce((sum, w) => sum + w + 1, 1);
}

/** Each column's width with its padding when plainTableWidth applies (null otherwise). */
function plainColumnWidths(columns: readonly FitColumn[], rows: readonly string[][]): number[] | null {
  if (columns.length === 0) return null;
  for (const t of [columns.map((c) => c.head), ...rows]) {
    if (t.length !== columns.length) return null;
    for (const cell of t) if (!isOneColumnText(cell)) return null;
  }
  return columns.map((c, i) => natural(c, rows, i));
}

function natural(col: FitColumn, rows: readonly string[][], i: number): number {
  const cells = [col.head, ...rows.map((r) => r[i] ?? '')];
  return Math.max(...cells.flatMap((c) => c.split('\n').map(codePoints))) + PAD;
}

/**
 * Renders a table no wider than `width` (null: as wide as it needs): first it hides the columns with the
 * highest `drop` number, right to left, then it wraps the `wrap` columns, and as a last resort every column.
 * A column with `drop: 0` is never hidden.
 */
export function fitTable(columns: readonly FitColumn[], rows: readonly string[][], width: number | null): FittedTable {
  if (width === null) return { text: render(columns, rows), hidden: [] };
  // Any choice of a plain table's columns is plain: measure each cell once, then add up the kept columns' widths
  // and draw the kept columns from those measures. A plain table's drawing is as wide as that sum
  // (plainTableWidth), so only other tables are measured drawn.
  const measured = measurePlainTable(
    columns.map((c) => c.head),
    rows,
  );
  const plainWidths = measured ? measured.widths.map((w) => w + PAD) : null;
  const widthOf = (idx: readonly number[]) => (plainWidths ? idx.reduce((sum, i) => sum + plainWidths[i]! + 1, 1) : null);
  const drawKept = (idx: readonly number[], m: MeasuredPlainTable) => drawPlainTable(m, columns.map((c) => c.numeric === true), idx);
  const predicted = widthOf(columns.map((_, i) => i));
  if (measured && predicted! <= width) return { text: drawKept(columns.map((_, i) => i), measured), hidden: [] };
  if (predicted === null) {
    const full = render(columns, rows);
    if (maxLineWidth(full) <= width) return { text: full, hidden: [] };
  }

  let keep = columns.map((_, i) => i);
  const hidden: string[] = [];
  const fits = (idx: number[]) => {
    const known = widthOf(idx);
    if (known !== null) return known <= width;
    const cols = idx.map((i) => columns[i]!);
    const cells = rows.map((r) => idx.map((i) => r[i] ?? ''));
    return (plainTableWidth(cols, cells) ?? maxLineWidth(render(cols, cells))) <= width;
  };
  // A plain table's column widths were measured above: the hiding loop and the fold reuse them instead of measuring every cell again.
  const naturalOf = (i: number): number => (plainWidths ? plainWidths[i]! : natural(columns[i]!, rows, i));
  const minimalWidth = (idx: number[]) => idx.reduce((sum, i) => sum + 1 + (columns[i]!.wrap ? MIN_WRAP : naturalOf(i)), 1);
  const hideOne = (minDrop: number): boolean => {
    const droppable = keep.filter((i) => columns[i]!.drop >= minDrop);
    if (droppable.length === 0) return false;
    const worst = Math.max(...droppable.map((i) => columns[i]!.drop));
    const victim = droppable.filter((i) => columns[i]!.drop === worst).at(-1)!;
    keep = keep.filter((i) => i !== victim);
    hidden.push(columns[victim]!.head);
    return true;
  };
  // Minor columns (drop 2 and up) go before any name folds; drop-1 columns only when folded names still do not fit.
  while (!fits(keep) && hideOne(2));
  while (!fits(keep) && minimalWidth(keep) > width && hideOne(1));
  const cols = keep.map((i) => columns[i]!);
  const cells = rows.map((r) => keep.map((i) => r[i] ?? ''));
  const known = widthOf(keep);
  if (measured && known! <= width) return { text: drawKept(keep, measured), hidden };
  if (known === null) {
    const plain = render(cols, cells);
    if (maxLineWidth(plain) <= width) return { text: plain, hidden };
  }

  // Fold the name columns into what the others leave (at hyphens and spaces); if that is not enough, share the width out evenly.
  const naturals = keep.map(naturalOf);
  const fixed = naturals.reduce((s, w, j) => s + (cols[j]!.wrap ? 0 : w + 1), 1);
  const wrapping = cols.filter((c) => c.wrap).length;
  if (wrapping > 0 && width - fixed >= wrapping * (PAD + 4)) {
    // Share the room out: a column narrower than its share keeps its natural width and leaves the rest to the others.
    const room = new Map<number, number>();
    let left = width - fixed;
    let open = cols.map((c, j) => j).filter((j) => cols[j]!.wrap);
    for (;;) {
      const share = Math.floor(left / open.length) - 1;
      const narrow = open.filter((j) => naturals[j]! <= share);
      if (narrow.length === 0 || narrow.length === open.length) {
        for (const j of open) room.set(j, narrow.length === open.length ? naturals[j]! : share);
        break;
      }
      for (const j of narrow) {
        room.set(j, naturals[j]!);
        left -= naturals[j]! + 1;
      }
      open = open.filter((j) => !narrow.includes(j));
    }
    const folded = cells.map((r) => r.map((c, j) => (cols[j]!.wrap ? foldCell(c, room.get(j)! - PAD) : c)));
    // A long head folds with its column's cells, or it would hold the column at its own width.
    const text = render(cols.map((c, j) => (c.wrap ? { ...c, head: foldCell(c.head, room.get(j)! - PAD) } : c)), folded);
    if (maxLineWidth(text) <= width) return { text, hidden };
  }
  const even = Math.max(PAD + 1, Math.floor((width - 1) / cols.length) - 1);
  return { text: render(cols.map((c) => ({ ...c, head: foldCell(c.head, even - PAD) })), cells.map((r) => r.map((c) => foldCell(c, even - PAD)))), hidden };
}

/** Joins the pieces of a bracketed group (`[24.0, 39.3]`, `[95% CI]`) into one, so a fold never breaks inside it. */
function keepBrackets(parts: readonly string[]): string[] {
  const out: string[] = [];
  let depth = 0;
  for (const p of parts) {
    if (depth > 0) out[out.length - 1] += p;
    else out.push(p);
    // By UTF-16 unit: a bracket is one unit, and no half of a surrogate pair is one.
    for (let i = 0; i < p.length; i++) depth = Math.max(0, depth + (p[i] === '[' ? 1 : p[i] === ']' ? -1 : 0));
  }
  return out;
}

/** Folds a cell onto lines of at most `width` characters, breaking after hyphens and at spaces where it can. */
export function foldCell(text: string, width: number): string {
  const w = Math.max(1, width);
  const lines: string[] = [];
  for (const raw of text.split('\n')) {
    let line = '';
    // A bracketed group wider than the line breaks at its own spaces ("[−13.4," then "+15.7]"), never inside a number.
    const parts = keepBrackets(raw.split(/(?<=-)|(?<= )/)).flatMap((p) => (codePoints(p) > w ? p.split(/(?<= )/) : [p]));
    for (const part of parts) {
      if (line && codePoints(line) + codePoints(part) > w) {
        lines.push(line.trimEnd());
        line = '';
      }
      line += part;
      while (codePoints(line) > w) {
        lines.push([...line].slice(0, w).join(''));
        line = [...line].slice(w).join('');
      }
    }
    lines.push(line.trimEnd());
  }
  return lines.join('\n');
}

/** The width output fits when there is no terminal, no $COLUMNS and no --width: a CI log, a pasted snippet. */
export const DEFAULT_WIDTH = 100;

/** The width stdout tables should fit: `--width`/`--wide` first, then the terminal, then $COLUMNS, else 100. */
export function terminalWidth(options: { wide?: boolean; width?: number | null; columns?: number | undefined; env?: Readonly<Record<string, string | undefined>> }): number | null {
  if (options.wide) return null;
  if (options.width) return options.width;
  if (options.columns && options.columns > 0) return options.columns;
  const env = Number(options.env?.COLUMNS);
  return Number.isInteger(env) && env > 0 ? env : DEFAULT_WIDTH;
}
