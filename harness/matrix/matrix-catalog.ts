// The matrix workloads under a workloads directory, for `bench list`.
import type { OutcomeMatrix } from './outcome-matrix.ts';

/** One row of `bench list` for a matrix workload. */
export interface MatrixListRow {
  kind: 'matrix';
  name: string;
  tasks: number;
  models: string[];
  clusters: number;
  licence: string;
  source: string;
  description: string;
}

/** The list row of a loaded matrix. */
export function matrixListRow(m: Pick<OutcomeMatrix, 'name' | 'models' | 'tasks' | 'source'>, description: string): MatrixListRow {
  // Sizes only: the per-model means of matrixSummary would sum every cell for figures the list never shows.
  const clusters = new Set(m.tasks.map((t) => t.cluster)).size;
  return { kind: 'matrix', name: m.name, tasks: m.tasks.length, models: m.models.map((x) => x.id), clusters, licence: m.source.licence, source: m.source.name, description: description.trim() };
}

/** The matrices as aligned columns, each description folded underneath by `fold`. */
export function renderMatrixList(rows: readonly MatrixListRow[], fold: (text: string) => string): string {
  const head = ['matrix', 'tasks', 'models', 'clusters', 'licence'];
  const cells = rows.map((r) => [r.name, String(r.tasks), String(r.models.length), String(r.clusters), r.licence]);
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (c: string[]) =>
    c
      .map((v, i) => (i >= 1 && i <= 3 ? v.padStart(widths[i]!) : v.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  const out = [line(head)];
  rows.forEach((r, i) => {
    out.push(line(cells[i]!));
    out.push(fold(`    models: ${r.models.join(', ')}`));
    out.push(fold(`    ${r.description.replace(/\s+/g, ' ')}`));
  });
  return out.join('\n');
}
