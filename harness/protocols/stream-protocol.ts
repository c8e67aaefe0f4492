// The query-stream protocol (`bench run --workload <cache-*>`): one pass per named stream, one job
// each that replays it through the cache (or with it off); the report is the streams' JSON.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { createEmbeddingProvider } from '../../runtime/patterns/embeddings/create-embedding-provider.ts';
import { loadPriceTable, type PriceTable } from '../../runtime/pricing/index.ts';
import { DEFAULT_TUNER_CONFIG } from '../../runtime/cache/threshold-tuner.ts';
import { formatAjvErrors, validatorFor } from '../../runtime/core/schemas.ts';
import type { CacheStreamReport } from '../../schemas/types/cache-stream-report.ts';
import type { CliIO } from '../io/cli-io.ts';
import { EXIT, SetupError } from '../errors.ts';
import { PACKAGE_ROOT, readGitFacts } from '../provenance.ts';
import { DEFAULT_CACHE_EMBEDDER, type StreamCommandOptions, type StreamReportEntry } from '../cache-bench/stream-options.ts';
import { runCrossFitted } from '../cache-bench/cross-fit.ts';
import { loadQueryStream } from '../cache-bench/load-stream.ts';
import { renderStreamTable } from '../cache-bench/render-stream-table.ts';
import { createMeter } from '../runner/progress-meter.ts';
import { recordToJson } from '../cache-bench/query-records.ts';
import { runStream } from '../cache-bench/run-stream.ts';
import { streamFigures } from '../cache-bench/stream-metrics.ts';
import type { Protocol, ProtocolTypes, RunHost } from './run-protocol.ts';

/** What every stream job of a run shares. */
export interface StreamContext {
  options: StreamCommandOptions;
  io: CliIO;
  prices: PriceTable;
  embedderId: string;
  /** Tier 2's learned bound on the wrong-hit rate. */
  delta: number;
}

/** The query-stream protocol's types: a job is one stream (its pass is its place in the order given, so a name given twice runs twice, as it always did), its result the stream's report entry. */
export interface StreamProtocolTypes extends ProtocolTypes {
  planInput: { names: readonly string[] };
  ctx: StreamContext;
  job: { pass: string; stream: string };
  result: StreamReportEntry;
  sectionInput: readonly StreamReportEntry[];
  section: StreamRunReport;
}

/** The report a stream run writes (schemas/cache-stream-report.schema.json, checked before it is written). */
export interface StreamRunReport {
  kind: 'cache_streams';
  provider: 'sim';
  streams: StreamReportEntry[];
}

/** The query-stream protocol over the streams `names` (each its own pass, in the order given). */
export function streamProtocol(names: readonly string[]): Protocol<StreamProtocolTypes> {
  return {
    name: 'query-streams',
    passes: names.map((_, i) => ({ name: String(i) })),
    plan: (input) => input.names.map((stream, i) => ({ pass: String(i), stream })),
    runOne: (job, ctx) => replayStream(job.stream, ctx),
    afterPass: () => [],
    finish: () => Promise.resolve(false),
    reportSection: (entries) => ({ kind: 'cache_streams', provider: 'sim', streams: [...entries] }),
  };
}

/** Replays one stream, prints its table, and returns its report entry (its figures cover what ran before a Ctrl-C). */
async function replayStream(name: string, ctx: StreamContext): Promise<StreamReportEntry> {
  const { options: o, io, prices, embedderId, delta } = ctx;
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
    const meter = createMeter({ label: `${name}: queries`, total: stream.queries.length, mode: o.quiet ? 'off' : io.isTTY ? 'tty' : 'lines', write: io.progress });
    const plain = fitted ? null : await runStream(stream, { cache: o.cache, embedder, prices, gate: o.gate, seed: o.seed, tuner, contextual, ...signal, onQuery: () => meter.tick() });
    meter.done();
    const records = fitted ? fitted.records : plain!.records;
    const interrupted = fitted ? fitted.interrupted : plain!.interrupted;
    if (interrupted) io.out(`interrupted (Ctrl-C) after ${records.length} of ${stream.queries.filter((q) => !q.warm).length} asked queries: the figures below cover those only`);
    const figures = streamFigures(records, o.penalty);
    const warm = stream.queries.filter((q) => q.warm).length;
    const calibration = fitted
      ? `cross-fit: asked queries split in 2 folds by a hash of their id (${fitted.foldSizes.join(' + ')}); each fold served by a tuner warmed only by a calibration replay of the other fold (${fitted.calibrationLabels.join(' / ')} labelled would-be hits), cache content the same in every replay; calibration calls are not in the costs`
      : undefined;
    io.out(renderStreamTable({ name, set: stream.set, embedder: embedderId, delta, gate: o.gate, cache: o.cache, warm, ...(sourced ? { labels } : {}), ...(calibration ? { calibration } : {}), contextual: contextual && o.cache }, figures, 'text', o.width ?? null));
    io.out('');
    return {
      ...(interrupted ? { status: 'interrupted' as const } : {}), name, set: stream.set, embedder: embedderId, delta, gate: o.gate, cache: o.cache, ...(sourced ? { labels } : {}), ...(crossFit ? { calibration: 'cross-fit' as const } : {}), ...(contextual && o.cache ? { contextual_embedding: 'emulated' as const } : {}), figures, records: records.map(recordToJson) };
  } finally {
    await embedder.close();
  }
}

/**
 * Where a stream run is recorded: the entries in memory, then the JSON report (no trace DB). Its
 * outcome is the exit code: 1 when a must-miss query was served or Ctrl-C stopped a stream, else 0.
 */
export function streamRunHost(o: StreamCommandOptions, io: CliIO): RunHost<StreamProtocolTypes, number> {
  return {
    open: (protocol) => {
      const delta = o.delta ?? DEFAULT_TUNER_CONFIG.delta;
      if (!(delta > 0)) throw new SetupError(`--cache-delta must be above 0 (a bound of 0 serves nothing); got ${delta}`);
      const ctx: StreamContext = { options: o, io, prices: loadPriceTable(), embedderId: o.embedder ?? DEFAULT_CACHE_EMBEDDER, delta };
      const entries: StreamReportEntry[] = [];
      let failed = false;
      return Promise.resolve({
        ctx,
        passes: protocol.passes,
        todo: protocol.plan({ names: o.names }),
        concurrency: 1,
        commit: (_job, entry) => {
          entries.push(entry);
          if (entry.figures.must_miss_classes_hit.length || entry.status === 'interrupted') failed = true;
          // The streams not yet started are not run: the report says which one stopped.
          return Promise.resolve(io.interrupt?.aborted === true);
        },
        passDone: () => Promise.resolve(),
        recordingErrors: () => {},
        failed: (e) => e,
        report: () => {
          const out = resolve(io.cwd, o.json ?? join('reports', '.runs', `cache-streams-${new Date().toISOString().replace(/[:.]/g, '-')}.json`));
          const git = readGitFacts(PACKAGE_ROOT);
          // The checkout that ran, so `bench view` can show which commit a stream's figures came from.
          const report = { ...protocol.reportSection(entries), provenance: { metis_commit_sha: git.sha, metis_dirty: git.dirty } };
          const check = validatorFor<CacheStreamReport>('cache-stream-report.schema.json');
          // A report that does not match its schema is a bug here, not the user's: say which field.
          if (!check(report)) throw new Error(`cache stream report fails schemas/cache-stream-report.schema.json: ${formatAjvErrors(check.errors).join('; ')}`);
          mkdirSync(dirname(out), { recursive: true });
          writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
          io.out(`JSON: ${out}`);
          return Promise.resolve(failed ? EXIT.assertionFailed : EXIT.ok);
        },
        close: () => Promise.resolve(),
      });
    },
  };
}
