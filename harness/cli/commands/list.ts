import { resolve } from 'node:path';
import { renderStreamList } from '../../cache-bench/stream-catalog.ts';
import { renderMatrixList } from '../../matrix/matrix-catalog.ts';
import type { CommandSpec } from '../command.ts';
import { addWidthOptions, tableWidth } from '../parse-args.ts';
import { CACHE_DIR_ENV, listRowsIndexed } from '../list/list-index.ts';
import type { ListRow } from '../list/list-rows.ts';

/** A column of the list: `drop` 0 is always shown, higher numbers are left out sooner when the width is short. */
interface ListColumn {
  head: string;
  drop: number;
  cell(r: ListRow): string;
  right?: boolean;
}

const gapCell = (r: ListRow) =>
  r.score_gap === null && r.solved_gap === null ? '-' : `${r.score_gap?.toFixed(2) ?? 'n/a'} / ${r.solved_gap?.toFixed(2) ?? 'n/a'}`;

const COLUMNS: ListColumn[] = [
  { head: 'workload', drop: 0, cell: (r) => r.name },
  { head: 'signal', drop: 0, cell: (r) => r.signal_strength },
  { head: 'measured by', drop: 0, cell: (r) => r.measured_by ?? '-' },
  { head: 'gap score/solved', drop: 1, cell: gapCell },
  { head: 'turns', drop: 2, cell: (r) => String(r.turns), right: true },
  { head: 'check', drop: 3, cell: (r) => (r.check ? 'yes' : 'no') },
  { head: 'sim', drop: 3, cell: (r) => (r.sim_script ? 'yes' : 'no') },
];

const GAP = '  ';
const INDENT = '    ';
/** The narrowest the workload column gets; longer names fold at their hyphens. */
const MIN_NAME = 16;

/** Splits a slug into lines of at most `width`, breaking after hyphens where it can. */
export function foldName(name: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const part of name.split(/(?<=-)/)) {
    if (line && line.length + part.length > width) {
      lines.push(line);
      line = '';
    }
    line += part;
    while (line.length > width) {
      lines.push(line.slice(0, width));
      line = line.slice(width);
    }
  }
  if (line) lines.push(line);
  return lines;
}

/**
 * Renders the list as aligned columns, one workload per row and its description folded underneath,
 * within `width` (null: no limit): low-value columns go first, then long names fold at hyphens.
 */
export function renderList(rows: readonly ListRow[], width: number | null): { text: string; hidden: string[] } {
  const natural = (c: ListColumn) => Math.max(c.head.length, ...rows.map((r) => c.cell(r).length));
  const total = (cols: ListColumn[], nameWidth: number) => cols.reduce((s, c, i) => s + (i ? GAP.length : 0) + (i === 0 ? nameWidth : natural(c)), 0);
  let cols = [...COLUMNS];
  const hidden: string[] = [];
  const dropOne = (minDrop: number) => {
    const droppable = cols.filter((c) => c.drop >= minDrop);
    if (droppable.length === 0) return false;
    const worst = Math.max(...droppable.map((c) => c.drop));
    const victim = droppable.filter((c) => c.drop === worst).at(-1)!;
    cols = cols.filter((c) => c !== victim);
    hidden.push(victim.head);
    return true;
  };
  if (width !== null) {
    // Minor columns go before any name folds; the gap goes only if folded names still do not fit.
    while (total(cols, natural(cols[0]!)) > width && dropOne(2));
    while (total(cols, Math.min(MIN_NAME, natural(cols[0]!))) > width && dropOne(1));
  }
  const rest = total(cols, 0);
  const nameWidth = width === null ? natural(cols[0]!) : Math.max(MIN_NAME, Math.min(natural(cols[0]!), width - rest));
  const widths = cols.map((c, i) => (i === 0 ? nameWidth : natural(c)));
  const line = (cells: string[]) =>
    cells
      .map((v, i) => (cols[i]!.right ? v.padStart(widths[i]!) : v.padEnd(widths[i]!)))
      .join(GAP)
      .trimEnd();
  const out = [line(cols.map((c) => c.head))];
  for (const r of rows) {
    const names = foldName(r.name, nameWidth);
    out.push(line(cols.map((c, i) => (i === 0 ? names[0]! : c.cell(r)))));
    for (const more of names.slice(1)) out.push(line([more]));
    out.push(fold(`${INDENT}${r.description}`, width, INDENT));
  }
  // Last resort when even the fixed columns do not fit (a very narrow width, a long provider name): cut lines.
  const cut = (l: string): string[] => (width === null || l.length <= width ? [l] : [l.slice(0, width), ...cut(l.slice(width))]);
  return { text: out.flatMap((l) => l.split('\n')).flatMap(cut).join('\n'), hidden };
}

const LEGEND = [
  'signal: high when `bench signal` measured a strong-minus-cheap gap >= 0.4 on the gated score (workloads/README.md).',
  'measured by: the provider of that measurement; "sim" is the built-in emulator, so its verdict says nothing about a real model until re-measured with a key; "-": none recorded.',
  'gap score/solved: mean gated score and solved rate, strong minus cheap. check: has a hidden check. sim: has a sim.yaml script.',
];

/** `bench list`: the workloads with their signal verdict, who measured it, turns and description; then the cache query streams and the matrix workloads. */
export const listCommandSpec: CommandSpec = {
  configure(cmd) {
    cmd
      .option('--workloads-dir <dir>', 'where workloads live', './workloads')
      .option('--json', 'print JSON instead of a table', false);
    addWidthOptions(cmd);
  },
  async run(cmd, _args, io) {
    const o = cmd.opts<{
      workloadsDir: string;
      json: boolean;
      width?: number;
      wide: boolean;
    }>();
    const root = resolve(io.cwd, o.workloadsDir);
    // The loaders (YAML, ajv, the outcome-matrix reader) load only when the list index cannot answer.
    const read = async (dir: string) => (await import('../list/list-rows.ts')).readListRows(dir);
    const { agents: rows, streams, matrices } = await listRowsIndexed(root, io.env[CACHE_DIR_ENV], read);
    if (o.json) {
      // One array: agent workloads, then query streams, told apart by `kind`.
      io.out(JSON.stringify([...rows.map((r) => ({ kind: 'agent' as const, ...r })), ...streams, ...matrices], null, 2));
      return 0;
    }
    const width = tableWidth(o, io);
    const fitted = renderList(rows, width);
    io.out(fitted.text);
    if (fitted.hidden.length > 0) io.out(fold(`hidden to fit ${width} columns: ${fitted.hidden.join(', ')} (--wide shows them)`, width));
    for (const line of LEGEND) io.out(fold(line, width));
    if (streams.length) {
      io.out('');
      io.out(fold('Query streams for the semantic cache (`bench run --workload NAME` replays one through the cache):', width));
      io.out(renderStreamList(streams, (t) => fold(t, width, '    ')));
      io.out(fold('queries: looked up (warm: written first without a lookup). must-miss: queries marked expect: miss, which no tier may serve. documents: document versions for Tier 3.', width));
    }
    if (matrices.length) {
      io.out('');
      io.out(fold('Matrix workloads (kind: matrix): recorded outcomes of real models on the same tasks, judged offline by the matrix protocol, not run through the agent loop:', width));
      io.out(renderMatrixList(matrices, (t) => fold(t, width, '    ')));
    }
    return 0;
  },
};

/** Breaks `text` at spaces so no line is longer than `width` (null: as is); continuation lines are indented. */
export function fold(text: string, width: number | null, indent = '  '): string {
  if (width === null || text.length <= width) return text;
  const lines: string[] = [];
  let line = '';
  for (const word of text.slice(indent.length * Number(text.startsWith(indent))).split(' ')) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = `${indent}${word}`;
    } else line = line ? `${line} ${word}` : `${text.startsWith(indent) ? indent : ''}${word}`;
  }
  if (line) lines.push(line);
  return lines.map((l) => (l.length > width ? l.slice(0, width) : l)).join('\n');
}
