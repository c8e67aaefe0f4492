import { fitLines } from './fit-lines.ts';
import { fitTable, type FitColumn } from './fit-table.ts';

// A plain-text report made of titled tables and prose, fitted to a width: any report (matrix, cache stream,
// cache compare) that is a list of sections renders through here, so it folds as the agent report does.

/** One section: prose lines (wrapped), or a titled table (columns hidden or folded to fit). */
export type TextSection = { lines: readonly string[] } | { title?: string; columns: readonly FitColumn[]; rows: readonly string[][]; notes?: readonly string[] };

/** The sections as text no wider than `width` (null: as wide as they need), each table followed by what it hid. */
export function renderSections(sections: readonly TextSection[], width: number | null): string {
  const out: string[] = [];
  for (const s of sections) {
    if ('lines' in s) {
      out.push(...s.lines.map((l) => fitLines(l, width)));
      continue;
    }
    if (s.title !== undefined) out.push(fitLines(s.title, width));
    const t = fitTable(s.columns, s.rows.map((r) => [...r]), width);
    out.push(t.text);
    if (t.hidden.length) out.push(fitLines(`  (hidden to fit ${width} columns: ${t.hidden.join(', ')}; --wide shows every column)`, width));
    for (const n of s.notes ?? []) out.push(fitLines(n, width));
  }
  return out.join('\n');
}

/**
 * Shares as `name 60%, name 30%, +2 more`: the `top` largest (ties in the given order), zero shares left
 * out, so a 24-model mix stays one short cell.
 */
export function topShares(shares: readonly { name: string; share: number }[], top = 3): string {
  const shown = shares.filter((s) => s.share > 0).sort((a, b) => b.share - a.share);
  const parts = shown.slice(0, top).map((s) => `${s.name} ${(100 * s.share).toFixed(0)}%`);
  const more = shown.length - top;
  return [...parts, ...(more > 0 ? [`+${more} more`] : [])].join(', ');
}
