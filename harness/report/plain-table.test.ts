import Table from 'cli-table3';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { drawPlainTable, measurePlainTable, renderPlainTable } from './plain-table.ts';

/** The drawing fit-table asked cli-table3 for before plain tables were drawn directly. */
function cliTable3(heads: readonly string[], right: readonly boolean[], rows: readonly (readonly string[])[]): string {
  const t = new Table({
    head: [...heads],
    colAligns: right.map((r) => (r ? 'right' : 'left')),
    style: { head: [], border: [], compact: true },
    chars: { mid: '', 'left-mid': '', 'mid-mid': '', 'right-mid': '' },
  });
  for (const r of rows) t.push([...r]);
  return t.toString();
}

// One-column characters, spaces and newlines at any place (leading, trailing, doubled), and empty cells.
const plain = fc.string({ maxLength: 14, unit: fc.constantFrom(...'ab Z09-.%±—…•“éßεΔ−≥\u00a0\n'.split('')) });
const table = fc.integer({ min: 1, max: 6 }).chain((n) =>
  fc.tuple(
    fc.array(plain, { minLength: n, maxLength: n }),
    fc.array(fc.boolean(), { minLength: n, maxLength: n }),
    fc.array(fc.array(plain, { minLength: n, maxLength: n }), { maxLength: 7 }),
  ),
);

describe('renderPlainTable', () => {
  it('draws exactly what cli-table3 draws, for every table of one-column text (property)', () => {
    fc.assert(
      fc.property(table, ([heads, right, rows]) => {
        expect(renderPlainTable(heads, right, rows)).toBe(cliTable3(heads, right, rows));
      }),
      { seed: 28, numRuns: 400 },
    );
  });

  it('draws a measured table\'s chosen columns as cli-table3 draws a table of those columns alone (property)', () => {
    const chosen = table.chain(([heads, right, rows]) => fc.tuple(fc.constant([heads, right, rows] as const), fc.subarray(heads.map((_, c) => c), { minLength: 1 })));
    fc.assert(
      fc.property(chosen, ([[heads, right, rows], columns]) => {
        const pick = <T,>(r: readonly T[]) => columns.map((c) => r[c]!);
        expect(drawPlainTable(measurePlainTable(heads, rows)!, right, columns)).toBe(cliTable3(pick(heads), pick(right), rows.map(pick)));
      }),
      { seed: 28, numRuns: 400 },
    );
  });

  it('draws a report-shaped table as cli-table3 does: numbers right-aligned, a folded name on two lines', () => {
    const heads = ['workload', 'pass', 'saved %'];
    const rows = [
      ['refactor-with-\ncontract', 'C', '66.7%'],
      ['fix-a-bug-small', 'A', '−3.1%'],
    ];
    expect(renderPlainTable(heads, [false, false, true], rows)).toBe(cliTable3(heads, [false, false, true], rows));
  });

  it('declines (null) what cli-table3 must measure: wide, emoji or control characters, escapes, ragged rows, no columns', () => {
    for (const odd of ['漢', '😀', '\t', '\u001b[1m', '\u0301', '™'])
      expect(renderPlainTable(['a', 'b'], [false, true], [['x', `y${odd}`]])).toBeNull();
    expect(renderPlainTable(['a', 'b'], [false, false], [['x']])).toBeNull();
    expect(renderPlainTable([], [], [])).toBeNull();
  });
});
