// `bench run --workload <cache-*>`: replays each named query stream through the cache and prints the
// per-tier table; with --cache off, the cache-off arm (every query computed) for a paired comparison.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { createEmbeddingProvider } from '../../runtime/patterns/embeddings/create-embedding-provider.ts';
import { loadPriceTable } from '../../runtime/pricing/index.ts';
import { DEFAULT_TUNER_CONFIG } from '../../runtime/cache/threshold-tuner.ts';
import { formatAjvErrors, validatorFor } from '../../runtime/core/schemas.ts';
import type { CacheStreamReport } from '../../schemas/types/cache-stream-report.ts';
import type { CliIO } from '../cli/command.ts';
import { EXIT, SetupError } from '../errors.ts';
import type { StreamLabels } from './audited-labels.ts';
import { runCrossFitted, type CalibrationMode } from './cross-fit.ts';
import { isQueryStreamDir, loadQueryStream } from './load-stream.ts';
import { renderStreamTable } from './render-stream-table.ts';
import { recordToJson, type QueryRecordJson } from './query-records.ts';
import { runStream } from './run-stream.ts';
import { streamFigures, type StreamFigures } from './stream-metrics.ts';

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

/** Runs the streams; exit 1 when a must-miss query was served or Ctrl-C stopped a stream (its partial figures are still printed and written), else 0. */
export async function runStreamCommand(o: StreamCommandOptions, io: CliIO): Promise<number> {
  const prices = loadPriceTable();
  const embedderId = o.embedder ?? DEFAULT_CACHE_EMBEDDER;
  const delta = o.delta ?? DEFAULT_TUNER_CONFIG.delta;
  if (!(delta > 0)) throw new SetupError(`--cache-delta must be above 0 (a bound of 0 serves nothing); got ${delta}`);
  const entries: StreamReportEntry[] = [];
  let failed = false;
  for (const name of o.names) {
    const labels = o.labels ?? 'gptcache';
    const stream = loadQueryStream(join(o.workloadsDir, name), labels);
    const sourced = stream.queries.some((q) => q.warm) && stream.set === 'paraphrase';
    const embedder = createEmbeddingProvider(embedderId, { env: io.env });
    try {
      const tuner = { delta, ...(o.priorOffset !== null ? { priorOffset: o.priorOffset } : {}) };
      const contextual = o.contextual ?? false;
      const crossFit = o.calibration === 'cross-fit' && o.cache;
      const signal = io.interrupt ? { signal: io.interrupt } : {};
      const fitted = crossFit ? await runCrossFitted(stream, { embedder, prices, gate: o.gate, seed: o.seed, tuner, contextual, ...signal }) : null;
      const plain = fitted ? null : await runStream(stream, { cache: o.cache, embedder, prices, gate: o.gate, seed: o.seed, tuner, contextual, ...signal });
      const records = fitted ? fitted.records : plain!.records;
      const interrupted = fitted ? fitted.interrupted : plain!.interrupted;
      if (interrupted) io.out(`interrupted (Ctrl-C) after ${records.length} of ${stream.queries.filter((q) => !q.warm).length} asked queries: the figures below cover those only`);
      const figures = streamFigures(records, o.penalty);
      const warm = stream.queries.filter((q) => q.warm).length;
      const calibration = fitted
        ? `cross-fit: asked queries split in 2 folds by a hash of their id (${fitted.foldSizes.join(' + ')}); each fold served by a tuner warmed only by a calibration replay of the other fold (${fitted.calibrationLabels.join(' / ')} labelled would-be hits), cache content the same in every replay; calibration calls are not in the costs`
        : undefined;
      io.out(renderStreamTable({ name, set: stream.set, embedder: embedderId, delta, gate: o.gate, cache: o.cache, warm, ...(sourced ? { labels } : {}), ...(calibration ? { calibration } : {}), contextual: contextual && o.cache }, figures));
      io.out('');
      if (figures.must_miss_classes_hit.length || interrupted) failed = true;
      entries.push({
        ...(interrupted ? { status: 'interrupted' as const } : {}), name, set: stream.set, embedder: embedderId, delta, gate: o.gate, cache: o.cache, ...(sourced ? { labels } : {}), ...(crossFit ? { calibration: 'cross-fit' as const } : {}), ...(contextual && o.cache ? { contextual_embedding: 'emulated' as const } : {}), figures, records: records.map(recordToJson) });
    } finally {
      await embedder.close();
    }
    // The streams not yet started are not run: the report says which one stopped.
    if (io.interrupt?.aborted) break;
  }
  const out = resolve(io.cwd, o.json ?? join('reports', '.runs', `cache-streams-${new Date().toISOString().replace(/[:.]/g, '-')}.json`));
  const report = { kind: 'cache_streams', provider: 'sim', streams: entries };
  const check = validatorFor<CacheStreamReport>('cache-stream-report.schema.json');
  // A report that does not match its schema is a bug here, not the user's: say which field.
  if (!check(report)) throw new Error(`cache stream report fails schemas/cache-stream-report.schema.json: ${formatAjvErrors(check.errors).join('; ')}`);
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
  io.out(`JSON: ${out}`);
  return failed ? EXIT.assertionFailed : EXIT.ok;
}
