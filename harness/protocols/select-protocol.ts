import { selectsQueryStreams } from '../cache-bench/stream-options.ts';
import { selectsMatrix } from '../matrix/matrix-selection.ts';
import type { ProtocolName } from '../jobs/passes.ts';

/** Every protocol `bench run` can follow: the agent-workload ones (--protocol), query streams and matrices. */
export type BenchProtocolName = ProtocolName | 'query-streams' | 'matrix';

/**
 * The protocol `bench run --workload ...` follows, chosen once: the selected workloads' kind first (one
 * matrix; query streams), else `--protocol` over agent workloads. Mixing kinds, or two matrices, is a setup error (exit 2).
 */
export function selectProtocol(workloadsDir: string, names: readonly string[], protocol: ProtocolName): BenchProtocolName {
  if (selectsMatrix(workloadsDir, names)) return 'matrix';
  if (selectsQueryStreams(workloadsDir, names)) return 'query-streams';
  return protocol;
}
