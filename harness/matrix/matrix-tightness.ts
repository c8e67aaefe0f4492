import type { MatrixTightness } from '../../schemas/types/matrix-compare.ts';
import { seededRandom } from '../../runtime/core/seeded-random.ts';
import { similarity, similarityV2, type StructuralFeatures } from '../../runtime/patterns/index.ts';
import { judgeTightness } from '../metrics/tightness-verdict.ts';
import { clusterTightness, type ClusterTightness } from '../metrics/cluster-tightness.ts';
import { shuffled } from './matrix-folds.ts';

/**
 * Cluster tightness on a matrix's own clusters (MMLU subjects, SWE-bench repositories) and pattern-store
 * §16.10 test 5 there: each sampled task's v1 fingerprint (its structural features) and v2 fingerprint
 * (the same features plus its text's embedding), mean pairwise similarity within and across clusters with
 * the workload partition off, v2 against v1. The spec's fixture is 60 turns of six workloads; a matrix
 * gives real clusters of real task texts.
 */

/** Up to `perCluster` tasks of each cluster, drawn with `seed`; task indices in table order. */
export function sampleByCluster(clusters: readonly string[], perCluster: number, seed: number): number[] {
  if (!Number.isInteger(perCluster) || perCluster < 1) throw new RangeError(`per-cluster sample must be a whole number >= 1, got ${perCluster}`);
  const random = seededRandom(seed);
  const by = new Map<string, number[]>();
  clusters.forEach((c, t) => {
    const l = by.get(c);
    if (l) l.push(t);
    else by.set(c, [t]);
  });
  return [...by.keys()]
    .sort()
    .flatMap((c) => shuffled(by.get(c)!, random).slice(0, perCluster))
    .sort((x, y) => x - y);
}

/** One sampled task: its cluster, its structural features and its text's embedding. */
export interface TightnessTask {
  cluster: string;
  features: StructuralFeatures;
  embedding: Float32Array;
}

/** v1 and v2 tightness over `tasks` and the test-5 verdict (v2 intra ≥ v1 intra + 0.10 and v2 inter ≤ v1 inter − 0.05). */
export function matrixTightness(tasks: readonly TightnessTask[], o: { providerId: string; alpha: number; perCluster: number }): MatrixTightness {
  const v1: ClusterTightness = clusterTightness(
    tasks.map((t) => ({ workload: t.cluster, value: t.features })),
    (a, b) => similarity(a, b, { useWorkloadId: false }),
  );
  const v2: ClusterTightness = clusterTightness(
    tasks.map((t) => ({ workload: t.cluster, value: { structural: t.features, embedding: t.embedding, embedding_provider: o.providerId } })),
    (a, b) => similarityV2(a, b, { alpha: o.alpha, useWorkloadId: false }),
  );
  const base = { embedding_provider: o.providerId, alpha: o.alpha, per_cluster: o.perCluster, tasks_sampled: tasks.length, v1, v2 };
  if (v1.intra === null || v1.inter === null || v2.intra === null || v2.inter === null)
    return {
      ...base,
      verdict: 'not_applicable',
      intra_gain: null,
      inter_drop: null,
      required_intra_gain: '0.10',
      required_inter_drop: '0.05',
      reason: 'needs at least two clusters with two sampled tasks each (pairs within and across clusters)',
    };
  const { verdict, intra_gain, inter_drop, required_intra_gain, required_inter_drop, reason } = judgeTightness({ intra: v1.intra, inter: v1.inter }, { intra: v2.intra, inter: v2.inter }, 'within_b');
  return { ...base, verdict, intra_gain, inter_drop, required_intra_gain, required_inter_drop, reason };
}
