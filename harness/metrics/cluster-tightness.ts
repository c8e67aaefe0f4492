import type { Tightness } from '../../schemas/types/report.ts';

/** Cluster tightness of a set of fingerprints (pattern-store.md §16.10 test 5, spec §8.3); the report's shape. */
export type ClusterTightness = Tightness;

/**
 * Mean similarity within and across workloads. `sim` must be the similarity with the workload-id
 * partition switched off, or the answer is trivially 1 and 0. Items without a workload are ignored.
 */
export function clusterTightness<T>(items: readonly { workload: string | null; value: T }[], sim: (a: T, b: T) => number): ClusterTightness {
  const xs = items.filter((i): i is { workload: string; value: T } => i.workload !== null);
  let intraSum = 0;
  let interSum = 0;
  let nIntra = 0;
  let nInter = 0;
  for (let i = 0; i < xs.length; i++) {
    for (let j = i + 1; j < xs.length; j++) {
      const s = sim(xs[i]!.value, xs[j]!.value);
      if (xs[i]!.workload === xs[j]!.workload) {
        intraSum += s;
        nIntra += 1;
      } else {
        interSum += s;
        nInter += 1;
      }
    }
  }
  const intra = nIntra ? intraSum / nIntra : null;
  const inter = nInter ? interSum / nInter : null;
  return { intra, inter, separation: intra !== null && inter !== null ? intra - inter : null, fingerprints: xs.length, pairs_intra: nIntra, pairs_inter: nInter };
}
