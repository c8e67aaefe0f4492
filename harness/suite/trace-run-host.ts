import { existsSync, mkdirSync } from 'node:fs';
import { removeTree } from '../../runtime/sandbox/index.ts';
import { dirname, resolve } from 'node:path';
import { createSystemClock, isoFromUs } from '../../runtime/core/clock.ts';
import { newId } from '../../runtime/core/ids.ts';
import { createMemoryLogger } from '../../runtime/core/logger.ts';
import { formatAjvErrors, validatorFor } from '../../runtime/core/schemas.ts';
import { createAnalytics } from '../../runtime/analytics/index.ts';
import { createEvaluator, loadRubric, resolveJudge, type JudgeAvailability } from '../../runtime/evaluator/index.ts';
import { createEventBus } from '../../runtime/events/index.ts';
import { loadModelRegistry } from '../../runtime/models/index.ts';
import { registryFor, resolveModel } from '../runner/model-selection.ts';
import { loadPriceTable } from '../../runtime/pricing/index.ts';
import { createRouter, defaultRoutingConfig, loadGlobalRoutingConfig } from '../../runtime/routing/index.ts';
import { builtinTools, createToolDispatcher, SKILL_TOOL_SIDE_EFFECTS } from '../../runtime/tools/index.ts';
import { openTraceStore } from '../../runtime/trace/index.ts';
import type { BenchReport, Provenance } from '../../schemas/types/report.ts';
import { SetupError } from '../errors.ts';
import { PACKAGE_ROOT, readGitFacts, type GitFacts } from '../provenance.ts';
import { buildReport } from '../report/build-report.ts';
import { RunStore } from '../runs/run-store.ts';
import { discoverWorkloads, selectWorkloads } from '../workloads/load-workload.ts';
import { CHECK_MOUNT, type Workload } from '../workloads/workload.ts';
import type { CliIO } from '../io/cli-io.ts';
import { createCallWatch, watchProvider, type CallWatch } from '../runner/call-watch.ts';
import { createProgress } from '../runner/progress.ts';
import { reportFingerprintSources } from '../report/pattern-checks.ts';
import { fingerprintsOfStore } from '../../runtime/patterns/index.ts';
import { choosePatternStore, openRunPatternStore } from '../runs/run-pattern-store.ts';
import { protocolFor } from '../protocols/protocols.ts';
import type { AgentProtocolTypes, OpenRun, ProtocolContext, RunHost, RunProtocol } from '../protocols/run-protocol.ts';
import type { RunSuiteOptions, RunSuiteResult } from './run-suite-options.ts';
import { createPatternSlot, startLearningLoop } from '../../runtime/learning/index.ts';
import { planProvider } from '../runner/provider-plan.ts';
import { CassetteMissError } from '../../runtime/providers/cassette/index.ts';
import { DEFAULT_REQUEST_TIMEOUT_MS } from '../../runtime/providers/provider.ts';
import { budgetWarning, costModeOf } from '../runner/cost-budget.ts';
import { createSpendGuard } from '../../runtime/sessions/index.ts';
import { simSignalWarning } from '../signal/sim-signal-warning.ts';
import { derivedRunId, jobKey, selectJobs } from '../jobs/shard.ts';
import { RunJobs } from '../runs/run-jobs.ts';
import { dropAllCheckpoints, dropCheckpoint, restoreCheckpoint, writeCheckpoint } from '../runs/pattern-checkpoint.ts';
import { createRunWorkDir, sweepDeadWorkDirs } from '../runs/run-workdir.ts';
import { resumeFacts, type ResumeFacts } from '../runs/resume-facts.ts';
import { refuseIfRunHeld, takeRunLease, type RunLease } from '../runs/run-lease.ts';
import { reconcileRunInputs, runInputs } from '../runs/run-inputs.ts';
import { sealKeyFrom, sealRun, unsealRun } from '../runs/run-seal.ts';
import { decideRunSandbox } from '../workspace/run-sandbox.ts';
import { withRunCache } from '../cache-bench/cached-reps.ts';
import { createOtlpStream } from '../export/otlp/otlp-stream.ts';
import { PACKAGE_VERSION } from '../export/package-version.ts';
import { defaultResourceLimits } from '../../runtime/sandbox/resource-limits.ts';
import { writeJsonFile } from '../io/write-json-file.ts';

/** Default DB path: reports/.runs/bench-<UTC timestamp>.db under the working directory. */
export function defaultDbPath(cwd: string, nowUs: number): string {
  const ts = isoFromUs(nowUs).slice(0, 19).replace(/:/g, '-');
  return resolve(cwd, 'reports', '.runs', `bench-${ts}Z.db`);
}

/** `--resume DB`: the run's identity (seed, models, protocol, workloads, shard...) from its DB, laid over the options given now. */
export function resolveRunIdentity(given: RunSuiteOptions, io: Pick<CliIO, 'cwd'>): { opts: RunSuiteOptions; resume: ResumeFacts | null } {
  const resume: ResumeFacts | null = given.resumePath ? resumeFacts(resolve(io.cwd, given.resumePath), given) : null;
  if (given.acceptChanged && !resume) throw new SetupError('--accept-changed needs --resume DB (it resumes a run whose workloads or commit changed since it started)');
  if (given.retryErrors && !resume) throw new SetupError('--retry-errors needs --resume DB (it re-runs the reps of that run that ended in provider errors)');
  const opts: RunSuiteOptions = resume ? { ...given, ...resume.identity } : given;
  return { opts, resume };
}

/**
 * Where an agent-workload run is recorded: the trace DB (events, rep rows, job ledger, run lease,
 * seal), the shared pattern store with its checkpoints (resume), the shard and `--passes` selection,
 * progress, OTLP, and the report built from the DB. The protocol (single, signal, A3) says what each job is.
 */
export function traceRunHost(opts: RunSuiteOptions, resume: ResumeFacts | null, io: CliIO): RunHost<AgentProtocolTypes, RunSuiteResult, RunProtocol> {
  return { open: (protocol) => openTraceRun(protocol, opts, resume, io) };
}

/**
 * Loads and checks every input of an agent-workload run (models, prices, workloads, provider, sandbox,
 * paths, passes, the job plan, routing config) before anything is written: every setup error, exit 2, comes from here.
 */
async function planTraceRun(protocol: RunProtocol, opts: RunSuiteOptions, resume: ResumeFacts | null, io: CliIO) {
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
  const progressMode = opts.progressMode ?? (opts.showProgress ? 'tty' : 'off');
  const requestTimeoutMs = opts.requestTimeoutSeconds != null ? Math.round(opts.requestTimeoutSeconds * 1000) : null;
  // Calls that keep the run waiting, and the retries of a real provider, are shown as they happen (call-watch.ts).
  let calls: CallWatch | null = null;
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
    requestTimeoutMs,
    maxRetries: opts.maxRetries ?? null,
    onRetry: (n) => calls?.retried(n),
  });
  // Only a real provider has a request timeout to name (the emulator and a cassette answer at once).
  const real = !providers.simulated && !providers.actual.startsWith('replay:');
  calls = createCallWatch({ mode: progressMode, write: io.progress, requestTimeoutMs: real ? (requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS) : null });
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
  const allPasses = protocol.passes;
  const passNames = parsePassList(opts.passes ?? null, allPasses.map((p) => p.name));
  const passes = allPasses.filter((p) => passNames.includes(p.name));
  const shard = opts.shard ?? null;
  // Every job of the whole run in one-machine order; this DB runs its shard of its passes.
  const allJobs = protocol.plan({ workloads, reps: opts.seedPasses, maxJobs: defaultResourceLimits().run.planned_jobs_max });
  const limits = opts.limits ?? defaultResourceLimits().sandbox;
  const myJobs = selectJobs(allJobs, passNames, shard);
  // Invalid YAML or an unknown key is a DataFileError naming file and line (a setup error, exit 2).
  const globalRouting = opts.routingConfigPath ? loadGlobalRoutingConfig(resolve(io.cwd, opts.routingConfigPath)) : defaultRoutingConfig();
  const patternChoice = choosePatternStore(globalRouting, { fingerprintVersion: opts.fingerprintVersion ?? null, embeddingProvider: opts.embeddingProvider ?? null });
  // Compiled now, so a Ctrl-C later pays only for validating the partial report.
  const validate = validatorFor<BenchReport>('report.schema.json');
  return { clock, logger, prices, registry, actual, baseline, setupWarnings, workloadsDir, workloads, providers, progressMode, calls, runSandbox, startedUs, dbPath, jsonPath, patternsDbPath, allPasses, passNames, passes, shard, allJobs, limits, myJobs, globalRouting, patternChoice, validate };
}

/** What planTraceRun found: the run's inputs, checked. */
type TracePlan = Awaited<ReturnType<typeof planTraceRun>>;

/** The run's provenance as recorded when it ends at `endedUs` (the protocol adds what its own options mean). */
function runProvenance(plan: TracePlan, protocol: RunProtocol, opts: RunSuiteOptions, run: { runId: string; git: GitFacts; acceptedChanges: string[] }, endedUs: number): Provenance {
  const { prices, actual, baseline, providers, startedUs, patternChoice, dbPath, patternsDbPath, workloadsDir, shard, passNames, allPasses } = plan;
  const { runId, git, acceptedChanges } = run;
  return {
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
    protocol: protocol.name,
    fingerprint_version: patternChoice.fingerprint_version,
    embedding_provider: patternChoice.embedding_provider,
    embedding_alpha: patternChoice.embedding_alpha,
    db_path: dbPath,
    patterns_db_path: patternsDbPath,
    // The strong arm's model, when a pass forces one (A3's B, signal's strong; single has none).
    strong_model: protocol.passes.some((p) => p.forced === 'strong') ? baseline.id : null,
    workloads_dir: workloadsDir,
    shard,
    ...(passNames.length < allPasses.length ? { passes: passNames } : {}),
    ...protocol.provenance,
    ...(acceptedChanges.length ? { accepted_changes: acceptedChanges } : {}),
    ...(opts.cache ? { semantic_cache: true as const } : {}),
    ...(opts.oracleEpsilon != null ? { oracle_epsilon: opts.oracleEpsilon } : {}),
    ...(opts.marginPts != null ? { margin_pts: opts.marginPts } : {}),
  };
}

async function openTraceRun(protocol: RunProtocol, opts: RunSuiteOptions, resume: ResumeFacts | null, io: CliIO): Promise<OpenRun<AgentProtocolTypes, RunSuiteResult>> {
  const plan = await planTraceRun(protocol, opts, resume, io);
  const { clock, logger, prices, registry, actual, baseline, setupWarnings, workloadsDir, workloads, providers, progressMode, calls, runSandbox, startedUs, dbPath, jsonPath, patternsDbPath, passes, shard, allJobs, limits, myJobs, globalRouting, patternChoice, validate } = plan;

  // ---- open the run's records
  // A resumed run that another bench is writing is refused by name before this one waits on its lock.
  if (resume) refuseIfRunHeld(dbPath, resume.runId, { nowUs: () => clock.nowUs() });
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
        ? derivedRunId({ seed: opts.seed, protocol: protocol.name, seedPasses: opts.seedPasses, actualModel: actual.id, baselineModel: baseline.id, workloads: workloads.map((w) => w.spec.name), commit: git.sha, pricingVersion: prices.version, fingerprintVersion: patternChoice.fingerprint_version })
        : newId('run'));
    const runStartedUs = resume?.startedUs ?? startedUs;
    const provenance = (endedUs: number): Provenance => runProvenance(plan, protocol, opts, { runId, git, acceptedChanges }, endedUs);
    // One writer per run (harness/runs/run-lease.ts): a second bench on a live run stops here, before it writes.
    lease = takeRunLease(store.database, runId, { dbPath, nowUs: () => clock.nowUs() });
    const held = lease;
    // The run may have moved on while this bench was starting (another bench finished it): judge it again, as it is now.
    if (resume && jobsStore.storedStatus(runId) !== resume.status) throw new SetupError(`${dbPath}: run ${runId} changed while this bench was starting (it is now ${jobsStore.storedStatus(runId)}); run bench run --resume again to see what is left`);
    // What the reps are judged with: a resume on other workload files or another commit is refused unless accepted.
    const changes = reconcileRunInputs(store.database, runId, runInputs(workloads.map((w) => ({ name: w.spec.name, ...w })), git.sha), { dbPath, resume: resume !== null, acceptChanged: opts.acceptChanged ?? false });
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
    // Leftovers of runs whose process is gone: removed, or a warning; never this run's failure. On
    // stderr, not in the report: they are about another run, and a report must not depend on them.
    for (const w of sweepDeadWorkDirs().warnings) io.err(`warning: ${w}`);
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
    const progress = createProgress(progressMode, io.progress);
    // What this invocation runs: this DB's jobs that have no committed rep (all of them on a fresh run).
    const todo = myJobs.filter((j) => !committed.has(jobKey(j)));
    // Reps the protocol runs after the plan (Pass R, C-oos) are in the total: the count never reads done before they ran.
    const total = myJobs.length + (protocol.laterJobs?.(myJobs, Boolean(shard)) ?? 0);
    let done = myJobs.length - todo.length;
    const providerFor = opts.cache ? withRunCache(providers.forRep, prices, { bus }) : providers.forRep;
    const judges = new Map<string, JudgeAvailability>();
    const judgeFor = (w: Workload) => {
      let j = judges.get(w.spec.name);
      if (!j) judges.set(w.spec.name, (j = resolveJudge({ model: w.spec.evaluate?.llm_judge_model, providerFor: (model) => watchProvider(providers.forJudge(model), calls, `the judge of ${w.spec.name}`), prices, clock })));
      return j;
    };
    const recordingErrors: string[] = [...(resume?.recordingErrors ?? [])];
    const addErrors = (errs: readonly string[]) => recordingErrors.push(...errs.filter((e) => !recordingErrors.includes(e)));
    const spend = createSpendGuard(opts.maxCostUsd ?? null);
    const left = new Map<string, number>();
    for (const j of todo) left.set(`${j.pass}\u0000${j.workload}`, (left.get(`${j.pass}\u0000${j.workload}`) ?? 0) + 1);
    let commits: Promise<void> = Promise.resolve();
    if (resume && finished !== finishedBefore) {
      // --retry-errors dropped finished reps: re-key the checkpoint to the count the trace DB now holds.
      await writeCheckpoint(patternsDbPath, finished);
      dropCheckpoint(patternsDbPath, finishedBefore);
    } else if (!resume) await writeCheckpoint(patternsDbPath, 0);

    // What the protocol sees of the run: the runner keeps the ledger, checkpoints and progress.
    const ctx: ProtocolContext = {
      runId, workloads, seedPasses: opts.seedPasses, temperature: opts.temperature, cheapModel: actual.id, strongModel: baseline.id, shard, patterns, runs, router,
      runSeed: opts.seed,
      chainRouter: createRouter({ bus, registry, global: { ...globalRouting, default_model: globalRouting.default_model ?? actual.id }, slot4: null }),
      analytics: () => {
        store.flush();
        return createAnalytics(store.database, prices);
      },
      deps: { bus, prices, tools, evaluator, clock, logger, ids: newId, providerFor, judgeFor, watch: calls, hostPath, spend, workDir, sandbox: runSandbox.mode, limits, ...(io.interrupt ? { interrupt: io.interrupt } : {}), maxIterations: opts.maxIterations ?? 25 },
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
        done += 1;
        progress.groupDone({ pass: record.pass, workload: record.workload, reps: 1, meanScore: record.score, spendUsd: spend.spent(), done, total });
        return record.stopped_early === true;
      },
      drain: () => bus.drain(),
    };


    // Every temp dir the rep makes (workspace copy, hidden-check stage, shell scratch) goes under the
    // run's work dir, so a SIGKILL leaves nothing the next run's sweep does not remove.
    const tmpBefore = process.env.TMPDIR;
    process.env.TMPDIR = workDir;
    let settled = false;
    // Once, however the run ends: nothing more is learned or queued, and the work dir goes.
    const settle = async () => {
      if (settled) return;
      settled = true;
      calls.stop();
      progress.clear();
      await bus.drain();
      loop.stop();
      if (tmpBefore === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = tmpBefore;
      try {
        removeTree(workDir);
      } catch (e) {
        // The next run's sweep tries again once this process is gone.
        setupWarnings.push(`could not remove this run's work dir ${workDir}: ${(e as Error).message}`);
      }
    };
    return {
      ctx,
      passes,
      todo,
      // Sessions never share state, so reps can run side by side; per-session analytics stay exact.
      concurrency: opts.concurrency ?? 1,
      commit: async (job, record) => {
        let stop = false;
        // Checkpoint the store first, then commit the rep, then drop the older checkpoint: a kill
        // between any two steps leaves a checkpoint that matches the committed reps. One rep at a
        // time (reps in flight side by side finish in any order).
        const commit = commits.then(async () => {
          if (!record.stopped_early) await writeCheckpoint(patternsDbPath, finished + 1);
          held.assertHeld();
          runs.saveWorkloadRun(record);
          otlp?.repDone(record);
          if (record.stopped_early) stop = true;
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
        return stop;
      },
      passDone: () => bus.drain(),
      recordingErrors: addErrors,
      // A replay that lacks a request cannot go on: the run is not what was recorded.
      failed: (e) => (e instanceof CassetteMissError ? new SetupError(e.message) : e),
      report: async (stopped) => {
        await settle();
        store.flush();
        const budget = budgetWarning(spend.spent(), costModeOf(workloads.length, actual.id), done, workloads.length);
        const otlpWarnings = otlp ? await otlp.finish(provenance(clock.nowUs())) : [];
        const warnings = [...setupWarnings, ...providers.warnings, ...uniqueWarnings(logger.records), ...(budget ? [budget] : []), ...otlpWarnings];
        held.assertHeld();
        runs.saveRun(runId, runStartedUs, provenance(clock.nowUs()), { warnings: [...new Set([...(resume?.warnings ?? []), ...warnings])], recordingErrors, status: stopped ? 'incomplete' : 'complete' });
        // A complete run has nothing left to resume; an incomplete one keeps its last checkpoint.
        if (!stopped) dropAllCheckpoints(patternsDbPath);
        const report = buildReport({
          runs,
          analytics: createAnalytics(store.database, prices),
          runId,
          sectionOf: protocolFor,
          ...reportFingerprintSources(fingerprintsOfStore(patterns), patternChoice.embedding_alpha),
        });
        patterns.close();
        // Its rows, events and pattern store as finalised (the store closed: nothing writes it after), for bench merge to check (harness/runs/run-seal.ts).
        store.flush();
        sealRun(store.database, runId, clock.nowUs(), { key: sealKeyFrom(io.env), patternsPath: patternsDbPath });
        if (!validate(report)) throw new Error(`internal error: report does not match schemas/report.schema.json: ${formatAjvErrors(validate.errors).join('; ')}`);
        mkdirSync(dirname(jsonPath), { recursive: true });
        writeJsonFile(jsonPath, report);
        return { report, dbPath, jsonPath };
      },
      close: async () => {
        try {
          await settle();
        } finally {
          lease?.release();
          store.close();
        }
      },
    };
  } catch (e) {
    lease?.release();
    store.close();
    throw e;
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
