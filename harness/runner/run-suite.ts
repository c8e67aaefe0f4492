import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
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
import { CHECK_MOUNT, type Workload } from '../workloads/workload.ts';
import type { CliIO } from '../cli/command.ts';
import { createProgress, type ProgressMode } from './progress.ts';
import { reportFingerprintSources } from './pattern-checks.ts';
import { choosePatternStore, openRunPatternStore } from './run-pattern-store.ts';
import type { HoldoutKind, ProtocolName } from '../protocols/protocol.ts';
import { protocolFor } from '../protocols/protocols.ts';
import type { ProtocolContext } from '../protocols/run-protocol.ts';
import { createPatternSlot, startLearningLoop } from '../../runtime/learning/index.ts';
import type { RequestedProvider } from './resolve-provider.ts';
import { planProvider } from './provider-plan.ts';
import { CassetteMissError } from '../../runtime/providers/cassette/index.ts';
import { mapPool } from './pool.ts';
import { budgetWarning, costModeOf } from './cost-budget.ts';
import { createSpendGuard } from '../../runtime/sessions/index.ts';
import type { Decimal } from 'decimal.js';
import { simSignalWarning } from '../signal/sim-signal-warning.ts';
import { derivedRunId, jobKey, selectJobs, type RunJob, type ShardSpec } from './shard.ts';
import { RunJobs } from '../runs/run-jobs.ts';
import { dropAllCheckpoints, dropCheckpoint, restoreCheckpoint, writeCheckpoint } from '../runs/pattern-checkpoint.ts';
import { createRunWorkDir, sweepDeadWorkDirs } from '../runs/run-workdir.ts';
import { resumeFacts, type ResumeFacts } from '../runs/resume-facts.ts';
import { takeRunLease, type RunLease } from '../runs/run-lease.ts';
import { reconcileRunInputs, runInputs } from '../runs/run-inputs.ts';
import { sealRun, unsealRun } from '../runs/run-seal.ts';
import { decideRunSandbox } from '../workspace/run-sandbox.ts';
import { withRunCache } from '../cache-bench/cached-reps.ts';
import { createOtlpStream } from '../export/otlp/otlp-stream.ts';
import type { OtlpTarget } from '../export/otlp/otlp-send.ts';
import { PACKAGE_VERSION } from '../export/package-version.ts';
import { defaultResourceLimits, type SandboxLimits } from '../../runtime/sandbox/resource-limits.ts';

/** Everything `bench run` needs, already parsed. */
export interface RunSuiteOptions {
  /** `--cache on`: every model call goes through a run-wide semantic cache per workload (runtime/cache). */
  cache?: boolean;
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
  /** `tty` line with ETA, a `lines` log line per finished workload and pass, or `off`; default from showProgress. */
  progressMode?: ProgressMode;
  /** `--shard I/N`: run only this slice of the run's jobs (a stable hash of pass, workload, rep). */
  shard?: ShardSpec | null;
  /** `--passes A,B`: run only these passes of the protocol (default all). */
  passes?: string | null;
  /** `--run-id`: the run id shared by every shard; default derived from seed, suite, models, commit and prices when sharded. */
  runId?: string | null;
  /** `--resume DB`: continue the run in this DB (identity flags come from the DB). */
  resumePath?: string | null;
  /** `--retry-errors` (with --resume): also run again the reps that ended in a provider error. */
  retryErrors?: boolean;
  /** `--accept-changed` (with --resume): resume although workload files or the commit changed since the run started. */
  acceptChanged?: boolean;
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
  /** `--holdout workload` (A3): also run Pass C leave-one-workload-out as pass C-oos (harness/runner/holdout.ts). */
  holdout?: HoldoutKind | null;
  /** A3: run Pass R, the random router at Pass C's strong-call share, after the planned passes (default on; `--no-random-arm`). */
  randomArm?: boolean;
  /** `--otlp-endpoint`: stream each rep's OpenTelemetry spans there while the run goes (harness/export/otlp). */
  otlp?: OtlpTarget | null;
  /** `--oracle-epsilon`: the oracles' tolerance on mean gated score (default 0.02). */
  oracleEpsilon?: number | null;
  /** `--margin`: the headline's non-inferiority margin in points (default 5). */
  marginPts?: number | null;
  /** `--limit`: the sandbox's disk, process, memory and rep wall-time bounds; default runtime/data/resource-limits.json. */
  limits?: SandboxLimits;
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
export async function runSuite(given: RunSuiteOptions, io: CliIO): Promise<RunSuiteResult> {
  // ---- plan
  // --resume: the run's identity (seed, models, protocol, workloads, shard...) comes from its DB.
  const resume: ResumeFacts | null = given.resumePath ? resumeFacts(resolve(io.cwd, given.resumePath), given) : null;
  if (given.acceptChanged && !resume) throw new SetupError('--accept-changed needs --resume DB (it resumes a run whose workloads or commit changed since it started)');
  if (given.retryErrors && !resume) throw new SetupError('--retry-errors needs --resume DB (it re-runs the reps of that run that ended in provider errors)');
  const opts: RunSuiteOptions = resume ? { ...given, ...resume.identity } : given;
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
  const workloads = selectWorkloads(discoverWorkloads(workloadsDir), { names: opts.workloadNames, includeMarginal: opts.includeMarginal, notes: setupWarnings });
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
  if (existsSync(dbPath) && !resume) throw new SetupError(`${dbPath}: the trace DB already exists; pass a new --db-path (existing DBs are only read by analyze --skip-execute)`);
  mkdirSync(dirname(dbPath), { recursive: true });
  const jsonPath = opts.jsonPath ? resolve(io.cwd, opts.jsonPath) : dbPath.replace(/\.db$/, '') + '.json';
  const patternsDbPath = opts.patternsDbPath ? resolve(io.cwd, opts.patternsDbPath) : dbPath.replace(/\.db$/, '') + '.patterns.db';
  const protocol = protocolFor(opts.protocol);
  const allPasses = protocol.passes;
  const passNames = parsePassList(opts.passes ?? null, allPasses.map((p) => p.name));
  const passes = allPasses.filter((p) => passNames.includes(p.name));
  const shard = opts.shard ?? null;
  // Every job of the whole run in one-machine order; this DB runs its shard of its passes.
  const allJobs = protocol.plan(workloads, opts.seedPasses, defaultResourceLimits().run.planned_jobs_max);
  const limits = opts.limits ?? defaultResourceLimits().sandbox;
  const myJobs = selectJobs(allJobs, passNames, shard);
  // Invalid YAML or an unknown key is a DataFileError naming file and line (a setup error, exit 2).
  const globalRouting = opts.routingConfigPath ? loadGlobalRoutingConfig(resolve(io.cwd, opts.routingConfigPath)) : defaultRoutingConfig();
  const patternChoice = choosePatternStore(globalRouting, { fingerprintVersion: opts.fingerprintVersion ?? null, embeddingProvider: opts.embeddingProvider ?? null });
  // Compiled now, so a Ctrl-C later pays only for validating the partial report.
  const validate = validatorFor<BenchReport>('report.schema.json');

  // ---- execute
  const store = openTraceStore(dbPath, { logger });
  let lease: RunLease | null = null;
  try {
    const bus = createEventBus({ mode: 'strict', logger, clock });
    bus.subscribe(store.writer());
    const runs = new RunStore(store.database);
    const jobsStore = new RunJobs(store.database);
    jobsStore.ensure();
    // The commit of the harness and runtime that ran, wherever the user's workloads live.
    const git = readGitFacts(PACKAGE_ROOT);
    // Shards of one run share its id: given, or derived alike on every machine (docs/cli.md, --shard).
    const runId =
      resume?.runId ??
      opts.runId ??
      (shard || opts.passes
        ? derivedRunId({ seed: opts.seed, protocol: opts.protocol, seedPasses: opts.seedPasses, actualModel: actual.id, baselineModel: baseline.id, workloads: workloads.map((w) => w.spec.name), commit: git.sha, pricingVersion: prices.version, fingerprintVersion: patternChoice.fingerprint_version })
        : newId('run'));
    const runStartedUs = resume?.startedUs ?? startedUs;
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
      shard,
      ...(passNames.length < allPasses.length ? { passes: passNames } : {}),
      ...(opts.holdout ? { holdout: opts.holdout } : {}),
      ...(opts.protocol === 'a3' && opts.randomArm === false ? { random_arm: false as const } : {}),
      ...(acceptedChanges.length ? { accepted_changes: acceptedChanges } : {}),
      ...(opts.cache ? { semantic_cache: true as const } : {}),
      ...(opts.oracleEpsilon != null ? { oracle_epsilon: opts.oracleEpsilon } : {}),
      ...(opts.marginPts != null ? { margin_pts: opts.marginPts } : {}),
    });
    // One writer per run (harness/runs/run-lease.ts): a second bench on a live run stops here, before it writes.
    lease = takeRunLease(store.database, runId, { dbPath, nowUs: () => clock.nowUs() });
    const held = lease;
    // The run may have moved on while this bench was starting (another bench finished it): judge it again, as it is now.
    if (resume && jobsStore.storedStatus(runId) !== resume.status) throw new SetupError(`${dbPath}: run ${runId} changed while this bench was starting (it is now ${jobsStore.storedStatus(runId)}); run bench run --resume again to see what is left`);
    // What the reps are judged with: a resume on other workload files or another commit is refused unless accepted.
    const changes = reconcileRunInputs(store.database, runId, runInputs(workloads.map((w) => ({ name: w.spec.name, ...w })), git.sha), { dbPath, resume: resume !== null, acceptChanged: given.acceptChanged ?? false });
    const acceptedChanges = [...(resume?.acceptedChanges ?? []), ...changes];
    unsealRun(store.database, runId);
    if (changes.length) setupWarnings.push(`resumed with --accept-changed: the reps before and after this resume ran on different inputs (${changes.join('; ')})`);
    // `running` until finalised: a run killed now reads back as interrupted, never complete.
    runs.saveRun(runId, runStartedUs, provenance(startedUs), resume ? { warnings: resume.warnings, recordingErrors: resume.recordingErrors } : {});
    jobsStore.markRunning(runId);
    // Spans leave in batches on the processor's timer; a collector that fails costs a warning, never the run.
    const otlp = opts.otlp ? createOtlpStream({ runId, createdAtUs: runStartedUs, provenance: provenance(startedUs), target: opts.otlp, serviceVersion: PACKAGE_VERSION }) : null;
    if (otlp) bus.subscribe(otlp.subscription);
    jobsStore.savePlan(runId, allJobs, myJobs);
    // Roll back to the committed reps: a half-written rep's events go, and the pattern store returns
    // to its checkpoint after the last finished rep (harness/runs/pattern-checkpoint.ts).
    // Reps outside the plan (Pass R) have no checkpoint: a resume drops them and the protocol runs them again whole.
    const planned = new Set(allJobs.map(jobKey));
    const committedAll = jobsStore.committed(runId);
    const committedBefore = new Map([...committedAll].filter(([k]) => planned.has(k)));
    const finishedBefore = [...committedBefore.values()].filter((c) => !c.stopped).length;
    if (resume) {
      const unplanned = [...committedAll].filter(([k]) => !planned.has(k)).map(([, c]) => c.id);
      const drop = [...unplanned, ...[...committedBefore.values()].filter((c) => c.stopped || (opts.retryErrors && c.providerError)).map((c) => c.id)];
      jobsStore.rollback(runId, drop);
      // A complete run's store already matches its reps (its checkpoints were dropped when it finished).
      if (resume.status !== 'complete') restoreCheckpoint(patternsDbPath, finishedBefore);
    }
    const committed = jobsStore.committed(runId);
    let finished = [...committed.values()].length;
    sweepDeadWorkDirs();
    const workDir = createRunWorkDir(runId);

    const hostPath = io.env.PATH;
    // The workloads folder, and the directory bench runs from (a checkout's .env and the like): covered under bwrap and unshare.
    const toolList = builtinTools({ runShell: { hostPath, hide: [workloadsDir, io.cwd], sandbox: runSandbox.mode, limits }, reservedPaths: [CHECK_MOUNT] });
    const tools = createToolDispatcher({ tools: toolList, bus, logger, clock });
    const patterns = openRunPatternStore(patternsDbPath, patternChoice, { logger, clock, bus, env: io.env, canEmbed: true });
    const toolSideEffects = { ...Object.fromEntries(toolList.map((t) => [t.name, t.side_effects])), ...SKILL_TOOL_SIDE_EFFECTS };
    const slot4 = createPatternSlot({ store: patterns, bus, toolSideEffects });
    const loop = startLearningLoop({ bus, store: patterns, featuresOf: slot4.featuresOf, textOf: slot4.textOf, forget: slot4.forget, minEvalConfidence: slot4.minEvalConfidence, logger });
    const router = createRouter({ bus, registry, global: { ...globalRouting, default_model: globalRouting.default_model ?? actual.id }, slot4 });
    const evaluator = createEvaluator({ bus, rubric: loadRubric() });
    const progress = createProgress(opts.progressMode ?? opts.showProgress, io.progress);
    // What this invocation runs: this DB's jobs that have no committed rep (all of them on a fresh run).
    const todo = myJobs.filter((j) => !committed.has(jobKey(j)));
    const total = myJobs.length;
    let done = total - todo.length;
    const providerFor = opts.cache ? withRunCache(providers.forRep, prices, { bus }) : providers.forRep;
    const judges = new Map<string, JudgeAvailability>();
    const judgeFor = (w: Workload) => {
      let j = judges.get(w.spec.name);
      if (!j) judges.set(w.spec.name, (j = resolveJudge({ model: w.spec.evaluate?.llm_judge_model, providerFor: providers.forJudge, prices, clock })));
      return j;
    };
    const recordingErrors: string[] = [...(resume?.recordingErrors ?? [])];
    const addErrors = (errs: string[]) => recordingErrors.push(...errs.filter((e) => !recordingErrors.includes(e)));
    const spend = createSpendGuard(opts.maxCostUsd ?? null);
    const left = new Map<string, number>();
    for (const j of todo) left.set(`${j.pass}\u0000${j.workload}`, (left.get(`${j.pass}\u0000${j.workload}`) ?? 0) + 1);
    let stopped = false;
    let commits: Promise<void> = Promise.resolve();
    if (resume && finished !== finishedBefore) {
      // --retry-errors dropped finished reps: re-key the checkpoint to the count the trace DB now holds.
      await writeCheckpoint(patternsDbPath, finished);
      dropCheckpoint(patternsDbPath, finishedBefore);
    } else if (!resume) await writeCheckpoint(patternsDbPath, 0);

    // What the protocol sees of the run: the runner keeps the ledger, checkpoints and progress.
    const ctx: ProtocolContext = {
      runId, workloads, seedPasses: opts.seedPasses, temperature: opts.temperature, cheapModel: actual.id, strongModel: baseline.id, shard, holdout: opts.holdout ?? null, patterns, runs, router,
      runSeed: opts.seed, randomArm: opts.randomArm ?? true,
      chainRouter: createRouter({ bus, registry, global: { ...globalRouting, default_model: globalRouting.default_model ?? actual.id }, slot4: null }),
      analytics: () => {
        store.flush();
        return createAnalytics(store.database, prices);
      },
      deps: { bus, prices, tools, evaluator, clock, logger, ids: newId, providerFor, judgeFor, hostPath, spend, workDir, sandbox: runSandbox.mode, limits, ...(io.interrupt ? { interrupt: io.interrupt } : {}), maxIterations: opts.maxIterations ?? 25 },
      onProgress: (p) => progress.update({ ...p, spendUsd: spend.spent(), reps: opts.seedPasses, done, total }),
      openStore: (path) => openRunPatternStore(path, patternChoice, { logger, clock, bus: null, env: io.env, canEmbed: true }),
      routerFor: (s) => {
        const slot = createPatternSlot({ store: s, bus, toolSideEffects });
        return { slot, router: createRouter({ bus, registry, global: { ...globalRouting, default_model: globalRouting.default_model ?? actual.id }, slot4: slot }) };
      },
      stopLearning: () => loop.stop(),
      onRecord: (record) => {
        runs.saveWorkloadRun(record);
        otlp?.repDone(record);
        return record.stopped_early === true;
      },
      drain: () => bus.drain(),
    };

    // Every temp dir the rep makes (workspace copy, hidden-check stage, shell scratch) goes under the
    // run's work dir, so a SIGKILL leaves nothing the next run's sweep does not remove.
    const tmpBefore = process.env.TMPDIR;
    process.env.TMPDIR = workDir;
    try {
      for (const pass of passes) {
        const jobs = todo.filter((j) => j.pass === pass.name);
        // Sessions never share state, so reps can run side by side; per-session analytics stay exact.
        await mapPool(jobs, opts.concurrency ?? 1, async (job: RunJob) => {
          if (stopped || io.interrupt?.aborted) {
            stopped = true;
            return null;
          }
          const record = await protocol.runOne(job, ctx);
          // Checkpoint the store first, then commit the rep, then drop the older checkpoint: a kill
          // between any two steps leaves a checkpoint that matches the committed reps. One rep at a
          // time (reps in flight side by side finish in any order).
          const commit = commits.then(async () => {
            if (!record.stopped_early) await writeCheckpoint(patternsDbPath, finished + 1);
            held.assertHeld();
            runs.saveWorkloadRun(record);
            otlp?.repDone(record);
            if (record.stopped_early) stopped = true;
            else dropCheckpoint(patternsDbPath, finished++);
          });
          commits = commit.catch(() => {});
          await commit;
          done += 1;
          const key = `${job.pass}\u0000${job.workload}`;
          left.set(key, left.get(key)! - 1);
          if (left.get(key) === 0 && !record.stopped_early) {
            const scores = runs.workloadRuns(runId).filter((r) => r.pass === job.pass && r.workload === job.workload).map((r) => r.score).filter((x): x is number => x !== null);
            progress.groupDone({ pass: job.pass, workload: job.workload, reps: scores.length, meanScore: scores.length ? scores.reduce((a, b) => a + b, 0) / scores.length : null, spendUsd: spend.spent(), done, total });
          }
          return record;
        });
        if (stopped) break;
        await bus.drain();
        addErrors(protocol.afterPass(pass, jobs.length, ctx));
      }
      if (!stopped) stopped = await protocol.finish(ctx);
    } catch (e) {
      // A replay that lacks a request cannot go on: the run is not what was recorded.
      if (e instanceof CassetteMissError) throw new SetupError(e.message);
      throw e;
    } finally {
      progress.clear();
      await bus.drain();
      loop.stop();
      if (tmpBefore === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = tmpBefore;
      rmSync(workDir, { recursive: true, force: true });
    }
    store.flush();

    // ---- score and record
    const budget = budgetWarning(spend.spent(), costModeOf(workloads.length, actual.id), done, workloads.length);
    const otlpWarnings = otlp ? await otlp.finish(provenance(clock.nowUs())) : [];
    const warnings = [...setupWarnings, ...providers.warnings, ...uniqueWarnings(logger.records), ...(budget ? [budget] : []), ...otlpWarnings];
    held.assertHeld();
    runs.saveRun(runId, runStartedUs, provenance(clock.nowUs()), { warnings: [...new Set([...(resume?.warnings ?? []), ...warnings])], recordingErrors, status: stopped ? 'incomplete' : 'complete' });
    // Its rows and events as finalised, for bench merge to check (harness/runs/run-seal.ts).
    store.flush();
    sealRun(store.database, runId, clock.nowUs());
    // A complete run has nothing left to resume; an incomplete one keeps its last checkpoint.
    if (!stopped) dropAllCheckpoints(patternsDbPath);
    const report = buildReport({
      runs,
      analytics: createAnalytics(store.database, prices),
      runId,
      ...reportFingerprintSources(patterns, patternChoice.embedding_alpha),
    });
    patterns.close();
    if (!validate(report)) throw new Error(`internal error: report does not match schemas/report.schema.json: ${formatAjvErrors(validate.errors).join('; ')}`);
    mkdirSync(dirname(jsonPath), { recursive: true });
    writeFileSync(jsonPath, `${JSON.stringify(report, null, 2)}\n`);
    return { report, dbPath, jsonPath };
  } finally {
    lease?.release();
    store.close();
  }
}

/** `--passes` against the protocol's pass names (protocol order kept). */
function parsePassList(value: string | null, known: readonly string[]): string[] {
  if (value === null) return [...known];
  const asked = value.split(',').map((x) => x.trim()).filter(Boolean);
  const unknown = asked.filter((x) => !known.includes(x));
  if (asked.length === 0 || unknown.length > 0) throw new SetupError(`--passes takes a comma list of this protocol's passes (${known.join(',')}), got '${value}'`);
  return known.filter((x) => asked.includes(x));
}

/** WARN and ERROR log lines, once each, for the report. */
function uniqueWarnings(records: readonly { level: string; msg: string }[]): string[] {
  return [...new Set(records.filter((r) => r.level === 'warn' || r.level === 'error').map((r) => r.msg))];
}
