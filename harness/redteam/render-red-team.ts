import Table from 'cli-table3';
import { COMPETENT, DO_NOTHING, type RedTeamRow } from './red-team.ts';

/**
 * The cheat × workload table: a row per workload, a column per variant (competent plan,
 * do-nothing, each cheat). A cell shows what the hidden check said — `pass`, `fail`, or `error`
 * — and is marked `!!` when that is not what it must say. `·` is a cheat the workload does not have.
 */
export function renderRedTeamTable(rows: readonly RedTeamRow[]): string {
  const variants: string[] = [COMPETENT, DO_NOTHING];
  for (const r of rows) for (const c of r.cells) if (!variants.includes(c.variant)) variants.push(c.variant);
  const table = new Table({ head: ['workload', ...variants], style: { head: [], border: [] } });
  for (const r of rows) {
    if (r.cells.length === 0) {
      table.push([r.workload, { colSpan: variants.length, content: r.note ?? '' }]);
      continue;
    }
    table.push([
      r.workload,
      ...variants.map((v) => {
        const c = r.cells.find((x) => x.variant === v);
        if (!c) return '·';
        const said = c.passed === null ? 'error' : c.passed ? 'pass' : 'fail';
        return c.ok ? said : `${said} !!`;
      }),
    ]);
  }
  return table.toString();
}
