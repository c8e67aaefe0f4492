// What `bench list` shows, read from a workloads directory: every workload validated and summarised.
// Loaded only when the list index (list-index.ts) cannot answer, since it pulls in YAML, ajv and the
// outcome-matrix reader.
import { loadQueryStream } from '../../cache-bench/load-stream.ts';
import { queryStreamDirs, streamListRow, type StreamListRow } from '../../cache-bench/stream-catalog.ts';
import { matrixListRow, type MatrixListRow } from '../../matrix/matrix-catalog.ts';
import { loadMatrixWorkloadSpec, loadOutcomeMatrix } from '../../matrix/outcome-matrix.ts';
import { discoverWorkloads, matrixWorkloadDirs } from '../../workloads/load-workload.ts';

/** One agent workload's row of `bench list`. */
export interface ListRow {
  name: string;
  signal_strength: 'high' | 'marginal';
  /** Who measured the verdict (`signal.provider`), or null when the file records no measurement. */
  measured_by: string | null;
  score_gap: number | null;
  solved_gap: number | null;
  turns: number;
  check: boolean;
  sim_script: boolean;
  description: string;
}

/** Everything `bench list` prints, as data (plain JSON, so it can be kept in the list index). */
export interface ListRows {
  agents: ListRow[];
  streams: StreamListRow[];
  matrices: MatrixListRow[];
  /** Files read from outside the workloads directory (a stream's source.file with `..`), absolute. */
  outside: string[];
}

/** Loads and validates every workload under `root` (absolute); a problem throws the loader's SetupError. */
export async function readListRows(root: string): Promise<ListRows> {
  const agents = discoverWorkloads(root).map(
    (w): ListRow => ({
      name: w.spec.name,
      signal_strength: w.spec.signal_strength ?? 'high',
      measured_by: w.spec.signal?.provider ?? null,
      score_gap: w.spec.signal?.score_gap ?? null,
      solved_gap: w.spec.signal?.solved_gap ?? null,
      turns: w.spec.turns.length,
      check: Boolean(w.spec.evaluate?.check),
      sim_script: w.simScriptPath !== null,
      description: w.spec.description,
    }),
  );
  const outside: string[] = [];
  const streams = queryStreamDirs(root).map((d) => {
    const s = loadQueryStream(d);
    if (s.sourceFile !== undefined && !s.sourceFile.startsWith(`${root}/`)) outside.push(s.sourceFile);
    return streamListRow(s);
  });
  const matrices: MatrixListRow[] = [];
  for (const d of matrixWorkloadDirs(root)) matrices.push(matrixListRow(await loadOutcomeMatrix(d), loadMatrixWorkloadSpec(d).spec.description));
  return { agents, streams, matrices, outside };
}
