import { createHash } from 'node:crypto';
import type { MatrixSplit } from './run-matrix.ts';

/**
 * Development and confirmation halves of a matrix, fixed once and for all by its clusters: a cluster is
 * `dev` when the first four bytes of sha256(cluster id), read as an unsigned integer, fall below 70% of
 * 2^32, else `confirm`. Design choices are made on `dev` figures; `confirm` is looked at once, at the end.
 * The split depends on nothing but the cluster's id, so every run, seed and machine agrees on it.
 */

/** The share of clusters (in expectation) that fall in `dev`. */
export const DEV_SHARE = 0.7;

/** The half a cluster belongs to. */
export function splitOfCluster(cluster: string): 'dev' | 'confirm' {
  const h = createHash('sha256').update(cluster, 'utf8').digest();
  return h.readUInt32BE(0) < DEV_SHARE * 2 ** 32 ? 'dev' : 'confirm';
}

/** The indices of the tasks (by cluster) that `split` keeps, in order. */
export function splitRows(clusters: readonly string[], split: MatrixSplit): number[] {
  const memo = new Map<string, boolean>();
  return clusters.flatMap((c, t) => {
    let keep = memo.get(c);
    if (keep === undefined) memo.set(c, (keep = split === 'all' || splitOfCluster(c) === split));
    return keep ? [t] : [];
  });
}

/** `matrix` restricted to `split`'s tasks (the same object when `split` is all). */
export function splitMatrix<M extends { tasks: readonly { cluster: string }[]; cells: readonly unknown[] }>(matrix: M, split: MatrixSplit): M {
  if (split === 'all') return matrix;
  const rows = splitRows(
    matrix.tasks.map((t) => t.cluster),
    split,
  );
  return { ...matrix, tasks: rows.map((t) => matrix.tasks[t]!), cells: rows.map((t) => matrix.cells[t]!) };
}
