/**
 * Fold assignments of a cross-fit, reproducible from a seed. Two settings (issue 20):
 * `tasks` — unseen tasks of known workspaces: each cluster's tasks are shuffled and dealt over the
 * folds, so every fold holds about 1/k of every cluster; `clusters` — new workspaces: whole clusters
 * are shuffled and dealt over the folds (largest first, each to the emptiest fold) so no held-out
 * task's cluster is ever seen in training.
 */

import { seededRandom } from '../../runtime/core/seeded-random.ts';

/** How a cross-fit splits the tasks. */
export type FoldSetting = 'tasks' | 'clusters';

/** A Fisher–Yates shuffle of a copy of `xs`. */
export function shuffled<T>(xs: readonly T[], random: () => number): T[] {
  const out = [...xs];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** The fold (0..k−1) of each task under `setting`. Throws a RangeError when k cannot be met. */
export function assignFolds(clusters: readonly string[], k: number, setting: FoldSetting, seed: number): number[] {
  if (!Number.isInteger(k) || k < 2) throw new RangeError(`--folds must be an integer >= 2, got ${k}`);
  const random = seededRandom(seed);
  const byCluster = new Map<string, number[]>();
  clusters.forEach((c, t) => {
    let l = byCluster.get(c);
    if (!l) byCluster.set(c, (l = []));
    l.push(t);
  });
  const fold = new Array<number>(clusters.length).fill(0);
  const names = [...byCluster.keys()].sort();
  if (setting === 'tasks') {
    // A running offset so small clusters do not all start in fold 0.
    let next = 0;
    for (const c of names)
      for (const t of shuffled(byCluster.get(c)!, random)) {
        fold[t] = next % k;
        next++;
      }
    return fold;
  }
  if (names.length < k) throw new RangeError(`leaving whole clusters out needs at least ${k} clusters (one per fold); this matrix has ${names.length}: lower --folds or use the tasks setting`);
  const sizes = new Array<number>(k).fill(0);
  const order = shuffled(names, random).sort((a, b) => byCluster.get(b)!.length - byCluster.get(a)!.length);
  for (const c of order) {
    const f = sizes.indexOf(Math.min(...sizes));
    sizes[f]! += byCluster.get(c)!.length;
    for (const t of byCluster.get(c)!) fold[t] = f;
  }
  return fold;
}
