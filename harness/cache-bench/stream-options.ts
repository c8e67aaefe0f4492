// The options of a query-stream run (`bench run --workload <cache-*>`) and the report entry it writes per
// stream. The protocol is harness/protocols/stream-protocol.ts; the command is
// harness/cli/commands/run/run-stream-command.ts.
import { join } from 'node:path';
import { SetupError } from '../errors.ts';
import type { StreamLabels } from './audited-labels.ts';
import type { CalibrationMode } from './cross-fit.ts';
import { isQueryStreamDir } from './load-stream.ts';
import type { QueryRecordJson } from './query-records.ts';
import type { StreamFigures } from './stream-metrics.ts';

/** The default Tier 2 embedder of a stream run. */
export const DEFAULT_CACHE_EMBEDDER = 'local:use-lite';

export interface StreamCommandOptions {
  workloadsDir: string;
  names: string[];
  cache: boolean;
  embedder: string | null;
  delta: number | null;
  gate: boolean;
  priorOffset: number | null;
  penalty: number;
  seed: number;
  json: string | null;
  /** Labels of GPTCache-sourced streams (default GPTCache's own). */
  labels?: StreamLabels;
  /** `cross-fit`: each fold's tuner is warmed by a calibration replay of the other fold (default none). */
  calibration?: CalibrationMode;
  /** Embed queries behind the emulated context summary (semantic-cache-phase2.md §13). */
  contextual?: boolean;
  /** The width stdout tables fit (null or absent: no limit). */
  width?: number | null;
  /** --quiet: no progress meter on stderr. */
  quiet?: boolean;
}

/** True when every selected name is a query-stream workload (and there is at least one). */
export function selectsQueryStreams(workloadsDir: string, names: readonly string[]): boolean {
  const streams = names.filter((n) => isQueryStreamDir(join(workloadsDir, n)));
  if (streams.length && streams.length !== names.length)
    throw new SetupError(`--workload mixes query streams (${streams.join(', ')}) with agent workloads: run them in separate invocations`);
  return streams.length > 0;
}

export interface StreamReportEntry {
  name: string;
  set: string;
  embedder: string;
  delta: number;
  gate: boolean;
  cache: boolean;
  labels?: StreamLabels;
  calibration?: CalibrationMode;
  contextual_embedding?: 'emulated';
  /** Ctrl-C stopped this stream: its figures cover the queries replayed before it. */
  status?: 'interrupted';
  figures: StreamFigures;
  /** One per asked query: what `bench analyze --stream-report` recomputes the figures from. */
  records: QueryRecordJson[];
}
