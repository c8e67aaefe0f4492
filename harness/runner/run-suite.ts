import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { createSystemClock, isoFromUs } from '../../runtime/core/clock.ts';
import { newId } from '../../runtime/core/ids.ts';
import { createMemoryLogger } from '../../runtime/core/logger.ts';
import { formatAjvErrors, validatorFor } from '../../runtime/core/schemas.ts';
import { createAnalytics } from '../../runtime/analytics/index.ts';
import { createEvaluator, loadRubric, resolveJudge, type JudgeAvailability } from '../../runtime/evaluator/index.ts';
import { createEventBus } from '../../runtime/events/index.ts';
import { loadModelRegistry } from '../../runtime/models/index.ts';
import { registryFor, resolveModel } from './model-selection.ts';
import { loadPriceTable } from '../../runtime/pricing/index.ts';
import { createRouter, defaultRoutingConfig, loadGlobalRoutingConfig } from '../../runtime/routing/index.ts';
import { builtinTools, createToolDispatcher, SKILL_TOOL_SIDE_EFFECTS } from '../../runtime/tools/index.ts';
import { openTraceStore } from '../../runtime/trace/index.ts';
import type { BenchReport, Provenance } from '../../schemas/types/report.ts';
import { SetupError } from '../errors.ts';
import { PACKAGE_ROOT, readGitFacts } from '../provenance.ts';
import { buildReport } from '../report/build-report.ts';
import { RunStore } from '../runs/run-store.ts';
import { discoverWorkloads, selectWorkloads } from '../workloads/load-workload.ts';
import type { Workload } from '../workloads/workload.ts';
import type { CliIO } from '../cli/command.ts';
import { createProgress } from './progress.ts';
import { accumulationErrors, reportFingerprintSources } from './pattern-checks.ts';
import { choosePatternStore, openRunPatternStore } from './run-pattern-store.ts';
import { passesOf, type PassSpec, type ProtocolName } from '../protocols/protocol.ts';
import { createPatternSlot, startLearningLoop } from '../../runtime/learning/index.ts';
import type { RequestedProvider } from './resolve-provider.ts';
import { planProvider } from './provider-plan.ts';
import { CassetteMissError } from '../../runtime/providers/cassette/index.ts';
import { runWorkloadRep } from './run-workload.ts';
import { mapPool } from './pool.ts';
import { budgetWarning, costModeOf } from './cost-budget.ts';
import { createSpendGuard } from '../../runtime/sessions/index.ts';
import type { Decimal } from 'decimal.js';
import { simSignalWarning } from '../signal/sim-signal-warning.ts';
import { decideRunSandbox } from '../workspace/run-sandbox.ts';

/** Everything `bench run` needs, already parsed. */
export interface RunSuiteOptions {
  workloadsDir: string;
  workloadNames: string[];
  includeMarginal: boolean;
  provider: RequestedProvider;
  model: string;
  baseline: string;
  seedPasses: number;
  seed: number;
  temperature: number;
  dbPath: string | null;
  jsonPath: string | null;
  /** The shared pattern store; default beside the trace DB. An existing file is reused (a seeded store). */
  patternsDbPath: string | null;
  protocol: ProtocolName;
  showProgress: boolean;
  /** `--base-url` for openai-compatible servers (and proxies). */
  baseURL?: string | null;
  /** Append every provider exchange to this JSONL cassette (spec §11). */
  recordPath?: string | null;
  /** Serve every exchange from this cassette instead of a provider. */
  replayPath?: string | null;
  /** `--max-cost`: stop before spend passes this (report incomplete, exit 1). */
  maxCostUsd?: Decimal | null;
  /** Workload reps in flight at once (default 1). Above 1, Pass C's order of learning is not fixed. */
  concurrency?: number;
  /** LLM calls per turn before the iteration guard stops it. */
  maxIterations?: number;
  /** `--fingerprint-version`: pattern store v1 or v2; default from the routing config (v1). */
  fingerprintVersion?: 'v1' | 'v2';
  /** `--embedding-provider`: the v2 embedder id (implies v2); default from the routing config, else local:hashing-384. */
  embeddingProvider?: string | null;
  /** `--routing-config`: a global routing.yaml under each workspace's own (rules, tiers, pattern knobs, fingerprint version). */
  routingConfigPath?: string | null;
  /** `--unsandboxed`: a real provider's run_shell and checks may run without bubblewrap (harness/workspace/run-sandbox.ts). */
  unsandboxed?: boolean;
}

/** The finished run. */
export interface RunSuiteResult {
  report: BenchReport;
  dbPath: string;
  jsonPath: string;
}

/** Default DB path: reports/.runs/bench-<UTC timestamp>.db under the working directory. */
export function defaultDbPath(cwd: string, nowUs: number): string {
  const ts = isoFromUs(nowUs).slice(0, 19).replace(/:/g, '-');
  return resolve(cwd, 'reports', '.runs', `bench-${ts}Z.db`);
}

/**
 * `bench run`: plan (load and check every input, so setup errors come before any work), execute
 * (each workload rep in a hermetic copy), then score and record from the trace DB.
 */
export async function runSuite(opts: RunSuiteOptions, io: CliIO): Promise<RunSuiteResult> {
  // ---- plan
  const clock = createSystemClock();
  const logger = createMemoryLogger();
  const prices = loadPriceTable();
  const registry = registryFor(loadModelRegistry(), opts);
  const actual = resolveModel(registry, opts.model, '--model');
  const baseline = resolveModel(registry, opts.baseline, '--baseline');
  const setupWarnings: string[] = [];
  if (!prices.rates(baseline.id)) throw new SetupError(`--baseline ${baseline.id} has no price in price table ${prices.version}`);
  if (!prices.rates(actual.id)) {
    if (opts.provider !== 'openai-compatible') throw new SetupError(`--model ${actual.id} has no price in price table ${prices.version}`);
    setupWarnings.push(`${actual.id} is not in price table ${prices.version}: its calls count as rows_missing_from_price_table and are left out of the savings sums`);
  }

  const workloadsDir = resolve(io.cwd, opts.workloadsDir);
  const workloads = selectWorkloads(discoverWorkloads(workloadsDir), { names: opts.workloadNames, includeMarginal: opts.includeMarginal });
  const providers = planProvider({
    requested: opts.provider,
    modelProvider: actual.provider,
    env: io.env,
    workloads,
    registry,
    seed: opts.seed,
    record: opts.recordPath ? resolve(io.cwd, opts.recordPath) : null,
    replay: opts.replayPath ? resolve(io.cwd, opts.replayPath) : null,
    baseURL: opts.baseURL ?? null,
  });
  // A 'high' measured only on the sim says nothing about a real model (issue 11).
  const simSignal = simSignalWarning(workloads, providers.simulated);
  if (simSignal) setupWarnings.push(simSignal);
  const runSandbox = await decideRunSandbox({ env: io.env, realProvider: !providers.simulated, unsandboxed: opts.unsandboxed ?? false });
  if (runSandbox.warning) setupWarnings.push(runSandbox.warning);
  const startedUs = clock.nowUs();
  const dbPath = opts.dbPath ? resolve(io.cwd, opts.dbPath) : defaultDbPath(io.cwd, startedUs);
  if (existsSync(dbPath)) throw new SetupError(`${dbPath}: the trace DB already exists; pass a new --db-path (existing DBs are only read by analyze --skip-execute)`);
  mkdirSync(dirname(dbPath), { recursive: true });
  const jsonPath = opts.jsonPath ? resolve(io.cwd, opts.jsonPath) : dbPath.replace(/\.db$/, '') + '.json';
  const patternsDbPath = opts.patternsDbPath ? resolve(io.cwd, opts.patternsDbPath) : dbPath.replace(/\.db$/, '') + '.patterns.db';
  const passes = passesOf(opts.protocol);
  // Invalid YAML or an unknown key is a DataFileError naming file and line (a setup error, exit 2).
  const globalRouting = opts.routingConfigPath ? loadGlobalRoutingConfig(resolve(io.cwd, opts.routingConfigPath)) : defaultRoutingConfig();
  const patternChoice = choosePatternStore(globalRouting, { fingerprintVersion: opts.fingerprintVersion ?? null, embeddingProvider: opts.embeddingProvider ?? null });
  const modelFor = (p: PassSpec) => (p.forced === 'cheap' ? actual.id : p.forced === 'strong' ? baseline.id : null);

  // ---- execute
  const store = openTraceStore(dbPath, { logger });
  try {
    const bus = createEventBus({ mode: 'strict', logger, clock });
    bus.subscribe(store.writer());
    const runs = new RunStore(store.database);
    const runId = newId('run');
    // The commit of the harness and runtime that ran, wherever the user's workloads live.
    const git = readGitFacts(PACKAGE_ROOT);
    const provenance = (endedUs: number): Provenance => ({
      run_id: runId,
      suite_version: 1,
      metis_commit_sha: git.sha,
      metis_branch: git.branch,
      metis_dirty: git.dirty,
      pricing_version: prices.version,
      actual_model: actual.id,
      baseline_model: baseline.id,
      requested_provider: opts.provider,
      actual_provider: providers.actual,
      node_version: process.version,
      started_at: isoFromUs(startedUs),
      ended_at: isoFromUs(endedUs),
      temperature: opts.temperature,
      seed: opts.seed,
      seed_passes: opts.seedPasses,
      protocol: opts.protocol,
      fingerprint_version: patternChoice.fingerprint_version,
      embedding_provider: patternChoice.embedding_provider,
      embedding_alpha: patternChoice.embedding_alpha,
      db_path: dbPath,
      patterns_db_path: patternsDbPath,
      strong_model: opts.protocol === 'single' ? null : baseline.id,
      workloads_dir: workloadsDir,
    });
    runs.saveRun(runId, startedUs, provenance(startedUs));

    const hostPath = io.env.PATH;
    const toolList = builtinTools({ runShell: { hostPath, hide: [workloadsDir], sandbox: runSandbox.mode } });
    const tools = createToolDispatcher({ tools: toolList, bus, logger, clock });
    const patterns = openRunPatternStore(patternsDbPath, patternChoice, { logger, clock, bus, env: io.env, canEmbed: true });
    const slot4 = createPatternSlot({ store: patterns, bus, toolSideEffects: { ...Object.fromEntries(toolList.map((t) => [t.name, t.side_effects])), ...SKILL_TOOL_SIDE_EFFECTS } });
    const loop = startLearningLoop({ bus, store: patterns, featuresOf: slot4.featuresOf, textOf: slot4.textOf, forget: slot4.forget, minEvalConfidence: slot4.minEvalConfidence, logger });
    const router = createRouter({ bus, registry, global: { ...globalRouting, default_model: globalRouting.default_model ?? actual.id }, slot4 });
    const evaluator = createEvaluator({ bus, rubric: loadRubric() });
    const progress = createProgress(opts.showProgress, io.progress);
    const total = passes.reduce((n, p) => n + (p.delegationOnly ? workloads.filter((w) => (w.spec.expect?.min_delegate_calls ?? 0) > 0).length : workloads.length), 0) * opts.seedPasses;
    let done = 0;
    const providerFor = providers.forRep;
    const judges = new Map<string, JudgeAvailability>();
    const judgeFor = (w: Workload) => {
      let j = judges.get(w.spec.name);
      if (!j) judges.set(w.spec.name, (j = resolveJudge({ model: w.spec.evaluate?.llm_judge_model, providerFor: providers.forJudge, prices, clock })));
      return j;
    };
    const recordingErrors: string[] = [];
    const spend = createSpendGuard(opts.maxCostUsd ?? null);
    let stopped = false;

    try {
      for (const pass of passes) {
        const inPass = pass.delegationOnly ? workloads.filter((w) => (w.spec.expect?.min_delegate_calls ?? 0) > 0) : workloads;
        const jobs = inPass.flatMap((workload) => Array.from({ length: opts.seedPasses }, (_, rep) => ({ workload, rep })));
        // Sessions never share state, so reps can run side by side; per-session analytics stay exact.
        const passRecords = await mapPool(jobs, opts.concurrency ?? 1, async ({ workload, rep }) => {
          if (stopped || io.interrupt?.aborted) {
            stopped = true;
            return null;
          }
          const record = await runWorkloadRep(
            { runId, workload, pass: pass.name, rep, stickyModel: modelFor(pass), temperature: opts.temperature },
            {
              bus, prices, tools, router, evaluator, clock, logger, ids: newId, providerFor, judgeFor, hostPath, spend, sandbox: runSandbox.mode,
              ...(io.interrupt ? { interrupt: io.interrupt } : {}),
              maxIterations: opts.maxIterations ?? 25,
              onProgress: (p) => progress.update({ ...p, spendUsd: spend.spent(), reps: opts.seedPasses, done, total }),
            },
          );
          runs.saveWorkloadRun(record);
          if (record.stopped_early) stopped = true;
          done += 1;
          return record;
        });
        if (stopped) break;
        await bus.drain();
        // The seeding passes must leave every recorded turn in the shared store (benchmark.md §6.4).
        if (pass.forced !== null) recordingErrors.push(...accumulationErrors(patterns, passRecords.filter((r) => r !== null), opts.seedPasses));
      }
    } catch (e) {
      // A replay that lacks a request cannot go on: the run is not what was recorded.
      if (e instanceof CassetteMissError) throw new SetupError(e.message);
      throw e;
    } finally {
      progress.clear();
      await bus.drain();
      loop.stop();
    }
    store.flush();

    // ---- score and record
    const budget = budgetWarning(spend.spent(), costModeOf(workloads.length, actual.id), done, workloads.length);
    const warnings = [...setupWarnings, ...providers.warnings, ...uniqueWarnings(logger.records), ...(budget ? [budget] : [])];
    runs.saveRun(runId, startedUs, provenance(clock.nowUs()), { warnings, recordingErrors, status: stopped ? 'incomplete' : 'complete' });
    const report = buildReport({
      runs,
      analytics: createAnalytics(store.database, prices),
      runId,
      ...reportFingerprintSources(patterns, patternChoice.embedding_alpha),
    });
    patterns.close();
    const validate = validatorFor<BenchReport>('report.schema.json');
    if (!validate(report)) throw new Error(`internal error: report does not match schemas/report.schema.json: ${formatAjvErrors(validate.errors).join('; ')}`);
    mkdirSync(dirname(jsonPath), { recursive: true });
    writeFileSync(jsonPath, `${JSON.stringify(report, null, 2)}\n`);
    return { report, dbPath, jsonPath };
  } finally {
    store.close();
  }
}

/** WARN and ERROR log lines, once each, for the report. */
function uniqueWarnings(records: readonly { level: string; msg: string }[]): string[] {
  return [...new Set(records.filter((r) => r.level === 'warn' || r.level === 'error').map((r) => r.msg))];
}
