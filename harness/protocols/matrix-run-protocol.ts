// The matrix protocol (`bench run --workload <matrix>`): one pass per setting (in sample, unseen
// tasks, new workspace, online), one job each that routes every task through the runtime's router;
// the report is built from the settings' picks. The math lives in harness/matrix/.
import { mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { createSystemClock, isoFromUs } from '../../runtime/core/clock.ts';
import { newId } from '../../runtime/core/ids.ts';
import type { MatrixReport } from '../../schemas/types/matrix-report.ts';
import { InterruptedError, SetupError } from '../errors.ts';
import { PACKAGE_ROOT, readGitFacts } from '../provenance.ts';
import type { MatrixProtocolDeps } from '../matrix/matrix-protocol.ts';
import { buildMatrixReport, type MatrixRunData, type SettingName, type SettingRun } from '../matrix/matrix-report.ts';
import { writeMatrixRun } from '../matrix/matrix-run-db.ts';
import { loadOutcomeMatrix } from '../matrix/outcome-matrix.ts';
import { matrixBaselines } from '../matrix/operating-point.ts';
import { outcomeTable, type OutcomeTable } from '../matrix/outcome-table.ts';
import { splitMatrix } from '../matrix/matrix-split.ts';
import { DEFAULT_TARGET, targetText } from '../matrix/routing-target.ts';
import { matrixRouting, playSetting, protocolDeps, type MatrixRunOptions } from '../matrix/run-matrix.ts';
import { runProtocol } from './drive-protocol.ts';
import type { ProgressMode } from '../runner/progress.ts';
import { createMeter } from '../runner/progress-meter.ts';
import type { Protocol, ProtocolTypes, RunHost } from './run-protocol.ts';
import { writeJsonFile } from '../io/write-json-file.ts';

/** What every setting job of a matrix run shares. */
export interface MatrixContext {
  deps: MatrixProtocolDeps;
  folds: number;
  seed: number;
  matrixName: string;
  progress(text: string): void;
}

/** A setting to play, or to skip with the note that says why; its pass is its place in --matrix-settings (a setting given twice plays twice, as it always did). */
export interface MatrixJob {
  pass: string;
  setting: SettingName;
  skip: string | null;
}

/** The matrix protocol's types: a job is one setting, its result the setting's picks and how long it took (null when skipped). */
export interface MatrixProtocolTypes extends ProtocolTypes {
  planInput: { settings: readonly SettingName[]; clusters: number; folds: number };
  ctx: MatrixContext;
  job: MatrixJob;
  result: { run: SettingRun; ms: number } | null;
  sectionInput: MatrixRunData;
  section: MatrixReport;
}

/** The matrix protocol over `settings` (each its own pass, in the order given). */
export function matrixProtocol(settings: readonly SettingName[]): Protocol<MatrixProtocolTypes> {
  return {
    name: 'matrix',
    passes: settings.map((_, i) => ({ name: String(i) })),
    // Leaving whole clusters out needs at least one cluster per fold.
    plan: ({ settings: asked, clusters, folds }) => asked.map((setting, i) => ({ pass: String(i), setting, skip: setting === 'new_workspace' && clusters < folds ? `new_workspace skipped: ${clusters} cluster(s), fewer than --folds ${folds}` : null })),
    runOne: async (job, ctx) => {
      if (job.skip) {
        ctx.progress(job.skip);
        return null;
      }
      ctx.progress(`matrix ${ctx.matrixName}: ${job.setting}`);
      const t0 = performance.now();
      const run = await playSetting(job.setting, ctx.deps, ctx.folds, ctx.seed);
      return { run, ms: Math.round(performance.now() - t0) };
    },
    afterPass: () => [],
    finish: () => Promise.resolve(false),
    reportSection: (data) => buildMatrixReport(data),
  };
}

/** Where a matrix run reads its environment and writes its progress (a meter of routing decisions when `progressMode` is not off). */
export interface MatrixRunIO {
  cwd: string;
  env: Readonly<Record<string, string | undefined>>;
  progress(text: string): void;
  progressMode?: ProgressMode;
  /** Aborted by the first Ctrl-C or SIGTERM: the run stops at its next 1,000 routing decisions. */
  interrupt?: AbortSignal;
}

/** How many routing decisions pass between two looks at the interrupt (each look yields to the event loop once). */
const DECISIONS_PER_LOOK = 1000;

/**
 * Counts decisions into `tick` and, every DECISIONS_PER_LOOK of them, yields to the event loop so that a signal
 * handler can run, then stops the run if it was interrupted. A matrix report is built from every fold's picks,
 * so there is no partial one to write; the outcomes are recorded, so running the same command again redoes it.
 */
export function interruptible(signal: AbortSignal | undefined, tick: (n: number) => void): (n: number) => void | Promise<void> {
  let since = 0;
  // A promise only at a look: between looks the caller need not wait for a microtask per decision.
  return (n) => {
    tick(n);
    // A redone decision (n = 0) adds nothing to the meter but still counts toward the next look.
    since += Math.max(n, 1);
    if (!signal || since < DECISIONS_PER_LOOK) return;
    since = 0;
    return new Promise<void>((r) => setImmediate(r)).then(() => {
      if (signal.aborted) throw new InterruptedError('interrupted: a matrix report is built from every fold, so none was written; the outcomes are recorded, so the same command redoes the run');
    });
  };
}

/** A matrix run's outcome: its report and where its DB and JSON went. */
export interface MatrixRunResult {
  report: MatrixReport;
  dbPath: string;
  jsonPath: string;
}

/** Where a matrix run is recorded: the settings' picks in memory, then the matrix DB (what `analyze` rebuilds from) and the JSON report. */
export function matrixRunHost(o: MatrixRunOptions, io: MatrixRunIO): RunHost<MatrixProtocolTypes, MatrixRunResult> {
  return {
    open: async (protocol) => {
      const clock = createSystemClock();
      const startedUs = clock.nowUs();
      const split = o.split ?? 'all';
      const matrix = splitMatrix(await loadOutcomeMatrix(resolve(io.cwd, o.workloadDir)), split);
      if (matrix.tasks.length === 0) throw new SetupError(`${matrix.path}: --split ${split} keeps no task (every cluster falls in the other half); use --split all`);
      const target = o.target ?? DEFAULT_TARGET;
      // A declared cost_weight is one of the swept points, so its picks exist.
      const costWeights = target.kind === 'cost_weight' && !o.costWeights.some((w) => Math.abs(w - target.value) < 1e-12) ? [...o.costWeights, target.value].sort((a, b) => a - b) : [...o.costWeights];
      let table: OutcomeTable;
      try {
        table = outcomeTable(matrix, o.models ?? undefined);
      } catch (e) {
        if (e instanceof RangeError) throw new SetupError(`${matrix.path}: ${e.message}`);
        throw e;
      }
      if (costWeights.length === 0 || costWeights.some((w) => !(w >= 0 && w <= 1))) throw new SetupError(`--cost-weights: each must be in [0, 1]; got ${o.costWeights.join(',')}`);
      const clusterCount = new Set(table.clusters).size;
      const r = matrixRouting(o, io.env, io.cwd);
      const todo = protocol.plan({ settings: o.settings, clusters: clusterCount, folds: o.folds });
      // One routing decision per task and cost_weight in every setting played: what the meter counts
      // (a nested choice routes more, in its inner folds; the meter stops at its total and says done at the end).
      const meter = createMeter({ label: `matrix ${matrix.name}: routing decisions`, total: todo.filter((j) => !j.skip).length * table.taskIds.length * costWeights.length, mode: io.progressMode ?? 'off', write: io.progress });
      const deps = { ...protocolDeps(matrix, table, r, costWeights, o.seed, target), onRouted: interruptible(io.interrupt, (n: number) => meter.tick(n)) };
      const settings: SettingRun[] = [];
      const timings: Record<string, number> = {};
      let closed = false;
      const closeEmbedder = async () => {
        if (closed) return;
        closed = true;
        await r.provider?.close();
      };
      return {
        ctx: { deps, folds: o.folds, seed: o.seed, matrixName: matrix.name, progress: io.progress },
        passes: protocol.passes,
        todo,
        concurrency: 1,
        commit: (job, result) => {
          if (result) {
            settings.push(result.run);
            timings[job.setting] = result.ms;
          }
          return Promise.resolve(false);
        },
        passDone: () => Promise.resolve(),
        recordingErrors: () => {},
        // The loader checked the file; a value the protocol cannot use is still the matrix's fault.
        failed: (e) => (e instanceof RangeError ? new SetupError(`${matrix.path}: ${e.message}`) : e),
        report: async () => {
          meter.done();
          await closeEmbedder();
          const stamp = new Date(Math.floor(startedUs / 1000)).toISOString().replace(/[:.]/g, '-');
          const dbPath = o.dbPath ? resolve(io.cwd, o.dbPath) : join(io.cwd, 'reports', '.runs', `matrix-${stamp}.db`);
          const jsonPath = o.jsonPath ? resolve(io.cwd, o.jsonPath) : dbPath.replace(/\.db$/, '') + '.json';
          const pattern = r.routing.pattern;
          const git = readGitFacts(PACKAGE_ROOT);
          const provenance: MatrixReport['provenance'] = {
            run_id: newId(),
            matrix: matrix.name,
            matrix_path: matrix.path,
            source: { name: matrix.source.name, licence: matrix.source.licence, ...(matrix.source.url ? { url: matrix.source.url } : {}), ...(matrix.source.credit ? { credit: matrix.source.credit } : {}) },
            tasks: table.taskIds.length,
            clusters: clusterCount,
            models: [...table.models],
            default_model: deps.routerFor === undefined ? '' : table.models[matrixBaselines(table).weak]!,
            pricing_version: matrix.pricingVersion,
            fingerprint_version: r.choice.fingerprint_version,
            embedding_provider: r.choice.embedding_provider,
            pattern: { scoring: pattern.scoring, min_similarity: pattern.min_similarity, min_confidence: pattern.min_confidence, min_sample_size: pattern.min_sample_size, exploration: pattern.exploration },
            cost_weights: costWeights,
            target: targetText(target),
            split,
            folds: o.folds,
            seed: o.seed,
            started_at: isoFromUs(startedUs),
            ended_at: isoFromUs(clock.nowUs()),
            node_version: process.version,
            metis_commit_sha: git.sha,
            metis_dirty: git.dirty,
            db_path: dbPath,
            timings_ms: timings,
          };
          const data = { provenance, table, settings, chars: matrix.tasks.map((t) => t.text.length) };
          mkdirSync(dirname(dbPath), { recursive: true });
          writeMatrixRun(dbPath, data);
          const report = protocol.reportSection(data);
          mkdirSync(dirname(jsonPath), { recursive: true });
          writeJsonFile(jsonPath, report);
          return { report, dbPath, jsonPath };
        },
        close: closeEmbedder,
      };
    },
  };
}

/** Runs the matrix protocol on one matrix workload, writes its DB and JSON report, and returns the report. */
export function runMatrix(o: MatrixRunOptions, io: MatrixRunIO): Promise<MatrixRunResult> {
  // As before the protocol moved here, a matrix run (recorded outcomes, seconds) does not stop between settings on Ctrl-C.
  return runProtocol(matrixProtocol(o.settings), matrixRunHost(o, io), {});
}
