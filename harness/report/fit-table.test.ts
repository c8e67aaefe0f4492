import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fitTable, foldCell, maxLineWidth, plainTableWidth, terminalWidth, type FitColumn } from './fit-table.ts';

const COLUMNS: FitColumn[] = [
  { head: 'workload', drop: 0, wrap: true },
  { head: 'pass', drop: 0 },
  { head: 'solved', drop: 0, numeric: true },
  { head: 'saved %', drop: 0, numeric: true },
  { head: 'quality', drop: 1, numeric: true },
  { head: 'llm', drop: 3, numeric: true },
  { head: 'tool', drop: 3, numeric: true },
  { head: 'baseline $', drop: 2, numeric: true },
];
const ROW = ['refactor-with-contract-preservation', 'C', '3/3', '66.7%', '0.812±0.020', '12', '30', '0.1234'];

describe('fitTable', () => {
  it('leaves a table that fits alone', () => {
    const r = fitTable(COLUMNS, [ROW], null);
    expect(r.hidden).toEqual([]);
    expect(r.text).toContain('refactor-with-contract-preservation');
  });

  it('hides the highest drop numbers first, right to left, and keeps drop-0 columns', () => {
    // Minor columns go before the name folds: at 90 the name stays whole.
    const r = fitTable(COLUMNS, [ROW], 90);
    expect(r.hidden).toEqual(['tool', 'llm', 'baseline $']);
    expect(r.text).toContain('refactor-with-contract-preservation');
    const narrower = fitTable(COLUMNS, [ROW], 60);
    expect(narrower.hidden).toEqual(['tool', 'llm', 'baseline $', 'quality']);
    for (const keep of ['workload', 'pass', 'solved', 'saved %']) expect(narrower.hidden).not.toContain(keep);
    expect(maxLineWidth(narrower.text)).toBeLessThanOrEqual(60);
  });

  it('wraps names instead of hiding more when that is enough', () => {
    const r = fitTable(COLUMNS.slice(0, 4), [ROW.slice(0, 4)], 40);
    expect(r.hidden).toEqual([]);
    expect(maxLineWidth(r.text)).toBeLessThanOrEqual(40);
    // The name is all there, folded after its hyphens.
    expect(r.text).toMatch(/│ refactor-\s+│/);
    expect(r.text).toMatch(/│ contract-\s+│/);
    expect(r.text.split('\n').length).toBeGreaterThan(4);
  });

  it('never prints a line wider than asked, whatever the cells (property)', () => {
    const cell = fc.string({ minLength: 0, maxLength: 40, unit: fc.constantFrom('a', 'b', '-', '1', '.', '%', ' ') });
    fc.assert(
      fc.property(fc.array(fc.array(cell, { minLength: 8, maxLength: 8 }), { minLength: 1, maxLength: 6 }), fc.constantFrom(80, 100, 120), (rows, width) => {
        expect(maxLineWidth(fitTable(COLUMNS, rows, width).text)).toBeLessThanOrEqual(width);
      }),
      { numRuns: 150 },
    );
  });
});

describe('terminalWidth', () => {
  it('prefers --wide, then --width, then the terminal, then $COLUMNS, else 100', () => {
    expect(terminalWidth({ wide: true, columns: 80 })).toBeNull();
    expect(terminalWidth({ width: 90, columns: 80 })).toBe(90);
    expect(terminalWidth({ columns: 80, env: { COLUMNS: '100' } })).toBe(80);
    expect(terminalWidth({ env: { COLUMNS: '100' } })).toBe(100);
    expect(terminalWidth({ env: {} })).toBe(100);
  });
});

describe('maxLineWidth', () => {
  it('counts code points, as [...line] does, surrogate pairs as one (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: 'binary', maxLength: 12 }), { maxLength: 5 }), (lines) => {
        expect(maxLineWidth(lines.join('\n'))).toBe(Math.max(0, ...lines.flatMap((l) => l.split('\n')).map((l) => [...l].length)));
      }),
      { seed: 28, numRuns: 500 },
    );
    expect(maxLineWidth('😀😀\nab')).toBe(2);
  });
});

describe('plainTableWidth', () => {
  // Characters cli-table3 counts as one column, and some it does not (wide, emoji, combining, control, ANSI).
  const narrow = fc.constantFrom(...'abcXYZ019 #*-_./|%$±×—–…•“”éßĀžεαΔΩ−≥≤≈∞√∑\u00a0\n'.split(''));
  const other = fc.constantFrom('漢', 'ｘ', '😀', '©', '™', '\u0301', '\t', '\u001b[1m', '\u200b', '→');
  const table = (chars: fc.Arbitrary<string>) =>
    fc.integer({ min: 1, max: 5 }).chain((n) =>
      fc.tuple(
        fc.array(fc.record({ head: fc.string({ unit: chars, maxLength: 12 }), drop: fc.nat(3), numeric: fc.boolean() }), { minLength: n, maxLength: n }),
        fc.array(fc.array(fc.string({ unit: chars, maxLength: 15 }), { minLength: n, maxLength: n }), { maxLength: 6 }),
      ),
    );

  it('is the width of the rendered table, for every table of one-column characters', () => {
    fc.assert(
      fc.property(table(narrow), ([columns, rows]) => {
        expect(plainTableWidth(columns, rows)).toBe(maxLineWidth(fitTable(columns, rows, null).text));
      }),
    );
  });

  it('declines (null) a table holding any character of another width, so fitting renders it', () => {
    fc.assert(
      fc.property(table(narrow), other, fc.nat(), ([columns, rows], odd, at) => {
        const cells = rows.length > 0 ? rows.map((r) => [...r]) : [columns.map(() => '')];
        const row = cells[at % cells.length]!;
        row[at % row.length] += odd;
        expect(plainTableWidth(columns, cells)).toBeNull();
      }),
    );
  });

  it('fits a table of wide and emoji cells by rendering it, as before', () => {
    const columns: FitColumn[] = [
      { head: 'name', drop: 0 },
      { head: 'note', drop: 2 },
    ];
    const rows = [['漢字漢字', '😀😀😀😀😀😀😀']];
    const r = fitTable(columns, rows, 16);
    expect(r.hidden).toEqual(['note']);
    expect(maxLineWidth(r.text)).toBeLessThanOrEqual(16);
  });
});

describe('foldCell', () => {
  it('keeps an interval whole when it fits a line, and breaks one wider than the line at its space, never inside a number', () => {
    expect(foldCell('+1.1 pts [−13.4, +15.7]', 16).split('\n')).toEqual(['+1.1 pts', '[−13.4, +15.7]']);
    expect(foldCell('+1.1 pts [−13.4, +15.7]', 12).split('\n')).toEqual(['+1.1 pts', '[−13.4,', '+15.7]']);
  });

  it('never loses or adds a character other than the spaces at a fold', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 60 }), fc.integer({ min: 1, max: 30 }), (text, width) => {
        const folded = foldCell(text.replace(/\n/g, ' '), width);
        expect(folded.replace(/[\s]/g, '')).toBe(text.replace(/\s/g, ''));
        for (const line of folded.split('\n')) expect([...line].length).toBeLessThanOrEqual(width);
      }),
      { seed: 7, numRuns: 300 },
    );
  });

  it('counts characters, not UTF-16 units, in text holding astral ones (emoji): no line wider, none cut short (property)', () => {
    const text = fc.string({ maxLength: 40, unit: fc.constantFrom(...'ab- [],.'.split(''), '😀', '🚀', '𝔸') });
    fc.assert(
      fc.property(text, fc.integer({ min: 1, max: 20 }), (t, width) => {
        const folded = foldCell(t, width);
        expect(folded.replace(/\s/g, '')).toBe(t.replace(/\s/g, ''));
        for (const line of folded.split('\n')) expect([...line].length).toBeLessThanOrEqual(width);
        // Text as wide as the line in characters is left whole, though longer in UTF-16 units.
        if ([...t].length <= width && !/\s$/.test(t)) expect(folded).toBe(t);
      }),
      { seed: 2036, numRuns: 400 },
    );
  });
});
