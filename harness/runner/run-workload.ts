import { dirname } from 'node:path';
import { Decimal } from 'decimal.js';
import type { Clock } from '../../runtime/core/clock.ts';
import type { IdFactory } from '../../runtime/core/ids.ts';
import type { Logger } from '../../runtime/core/logger.ts';
import type { EventBus } from '../../runtime/events/event.ts';
import { calls, checkOutcome, checkTurnExpectations, outcomeFromScore, runCheck, type CheckResult, type Evaluator, type JudgeAvailability, type Verdict } from '../../runtime/evaluator/index.ts';
import type { PriceTable } from '../../runtime/pricing/rates.ts';
import type { SandboxMode } from '../../runtime/sandbox/index.ts';
import { defaultResourceLimits, type SandboxLimits } from '../../runtime/sandbox/resource-limits.ts';
import type { Provider } from '../../runtime/providers/provider.ts';
import type { TurnRouter } from '../../runtime/routing/index.ts';
import { Session, SpendLimitError, type SpendGuard, type TurnResult } from '../../runtime/sessions/index.ts';
import type { ToolDispatcher } from '../../runtime/tools/index.ts';
import type { Assertion } from '../../schemas/types/report.ts';
import type { WorkloadRunRecord } from '../runs/run-store.ts';
import { SetupError } from '../errors.ts';
import { withWorkspaceCopy, WorkspaceCleanupError } from '../workspace/hermetic-workspace.ts';
import { CHECK_MOUNT, type Workload } from '../workloads/workload.ts';
import { contentSignals, turnSignals, workloadSignals } from './workload-signals.ts';
import { repFailure, type RepErrorClass } from './rep-error.ts';
import { watchProvider, watchTools, type CallWatch } from './call-watch.ts';

/** Shared collaborators of every workload rep in a run. */
export interface RunnerDeps {
  bus: EventBus;
  prices: PriceTable;
  tools: ToolDispatcher;
  router: TurnRouter;
  evaluator: Evaluator;
  clock: Clock;
  ids: IdFactory;
  logger: Logger;
  maxIterations: number;
  /** The run's `--max-cost` guard, shared by every rep. */
  spend?: SpendGuard;
  /** PATH for shell tools and checks, read at the CLI edge. */
  hostPath?: string;
  /** The run's sandbox for hidden checks (harness/workspace/run-sandbox.ts); default auto. */
  sandbox?: SandboxMode;
  /** The workload's LLM judge, resolved once per workload (spec §5); absent means none. */
  judgeFor?(workload: Workload): JudgeAvailability;
  /** A provider for one rep (the sim provider needs workload, pass and rep for its seed). */
  providerFor(workload: Workload, pass: string, rep: number): Provider;
  /** Ctrl-C: no new turn starts once this is aborted. */
  interrupt?: AbortSignal;
  /** Disk, process, memory and rep wall-time bounds (`--limit`); default the shipped ones. */
  limits?: SandboxLimits;
  /** The run's work dir for temp workspaces (swept by the next run when this process dies); default the OS temp dir. */
  workDir?: string;
  /** Shows the rep's model calls, tools and hidden check while they keep the run waiting (call-watch.ts); default none. */
  watch?: CallWatch;
  /** Called as the rep progresses (TTY progress line). */
  onProgress?(p: { workload: string; pass: string; rep: number; turn: number; turns: number; spendUsd: Decimal }): void;
}

/** What to run: one rep of one workload in one pass. */
export interface WorkloadRep {
  runId: string;
  workload: Workload;
  pass: string;
  rep: number;
  /** Forced model (manual sticky, routing slot 2); null lets the chain decide. */
  stickyModel: string | null;
  temperature: number;
  /** The workload id the session's fingerprints carry; default the workload's name, null as in real traffic (--holdout). */
  workloadId?: string | null;
}

/**
 * Runs one workload rep end to end in a hermetic copy: the turns, then the hidden check, then the
 * verdicts (emitted after the session ends, as late verdicts), and returns the record to store.
 */
export async function runWorkloadRep(job: WorkloadRep, deps: RunnerDeps): Promise<WorkloadRunRecord> {
  const limits = deps.limits ?? defaultResourceLimits().sandbox;
  // The rep's wall-time bound: aborts the call or command in flight; the rep ends as resource_limit.
  const repClock = new AbortController();
  const repTimer = setTimeout(() => repClock.abort(), limits.rep_max_seconds * 1000);
  const overTime = `resource limit rep_max_seconds (${limits.rep_max_seconds}) reached: the rep ran out of wall time (raise it with --limit rep_max_seconds=N)`;
  try {
    return await runRep(job, { ...deps, limits }, { clock: repClock.signal, overTime });
  } catch (e) {
    if (!(e instanceof WorkspaceCleanupError)) throw e;
    // The rep ran, but its workspace could not be removed: recorded as an error, and the run goes on.
    const record = e.result as WorkloadRunRecord;
    deps.logger.log('warn', e.message);
    return record.error ? record : { ...record, error: e.message, error_class: 'internal_error' };
  } finally {
    clearTimeout(repTimer);
  }
}

/** The rep's wall-time bound as runRep sees it: a signal that fires at the deadline, and the message then. */
interface RepDeadline {
  clock: AbortSignal;
  overTime: string;
}

async function runRep(job: WorkloadRep, deps: RunnerDeps & { limits: SandboxLimits }, deadline: RepDeadline): Promise<WorkloadRunRecord> {
  const { workload } = job;
  const spec = workload.spec;
  const startedUs = deps.clock.nowUs();
  const { limits } = deps;
  const { clock: repClock, overTime } = deadline;
  const signal = deps.interrupt ? AbortSignal.any([deps.interrupt, repClock]) : repClock;
  return withWorkspaceCopy(workload.workspaceDir, async (root) => {
    const where = `pass ${job.pass} ${spec.name} rep ${job.rep + 1}`;
    const watch = deps.watch;
    const given = deps.providerFor(workload, job.pass, job.rep);
    const provider = watch ? watchProvider(given, watch, where) : given;
    const tools = watch ? watchTools(deps.tools, watch, where) : deps.tools;
    const session = new Session({ ...deps, provider, tools }, { workspaceRoot: root, stickyModel: job.stickyModel, workloadId: job.workloadId === undefined ? spec.name : job.workloadId });
    const turns: TurnResult[] = [];
    const assertions: Assertion[] = [];
    let error: string | null = null;
    let errorClass: RepErrorClass | string | null = null;
    let stoppedEarly = false;
    let spend = new Decimal(0);
    for (const [i, turn] of spec.turns.entries()) {
      if (deps.interrupt?.aborted) {
        error = `stopped: interrupted before turn ${i + 1}`;
        errorClass = 'interrupted';
        stoppedEarly = true;
        break;
      }
      if (repClock.aborted) {
        error = `stopped before turn ${i + 1}: ${overTime}`;
        errorClass = 'resource_limit';
        stoppedEarly = true;
        break;
      }
      deps.onProgress?.({ workload: spec.name, pass: job.pass, rep: job.rep, turn: i + 1, turns: spec.turns.length, spendUsd: spend });
      let r: TurnResult;
      try {
        r = await session.submitTurn(turn.prompt, { temperature: job.temperature, signal });
      } catch (e) {
        if (e instanceof SpendLimitError) {
          // --max-cost: stop cleanly; what was spent stays in the trace and the report.
          error = `stopped: ${e.message}`;
          errorClass = 'budget_stopped';
          stoppedEarly = true;
          break;
        }
        // Whatever the model did, the rep ends as a classified error and the suite goes on (rep-error.ts).
        const failure = repFailure(e);
        if (!failure) throw e;
        if (failure.error_class === 'internal_error') deps.logger.log('error', `internal error in ${spec.name} rep ${job.rep} turn ${i + 1}: ${failure.message}`, { stack: (e as Error)?.stack ?? null });
        error = `turn ${i + 1}: ${failure.message}`;
        errorClass = failure.error_class;
        break;
      }
      turns.push(r);
      spend = spend.plus(r.cost_usd);
      for (const a of checkTurnExpectations(turn.expect, r)) assertions.push({ scope: `turn ${i + 1}`, ...a });
      // A rejected key will fail every call that follows: stop the run (exit 2) with the provider's message, which names the variable.
      if (r.error_class === 'auth') throw new SetupError(r.error ?? 'authentication failed');
      // Ctrl-C aborted the call in flight: the rep stops as interrupted (resume runs it again), not as a provider error.
      if (r.error && deps.interrupt?.aborted) {
        error = `stopped: interrupted during turn ${i + 1}`;
        errorClass = 'interrupted';
        stoppedEarly = true;
        break;
      }
      if (r.error && repClock.aborted) {
        error = `turn ${i + 1}: ${overTime}`;
        errorClass = 'resource_limit';
        stoppedEarly = true;
        break;
      }
      if (r.error) {
        error = `turn ${i + 1}: ${r.error}`;
        errorClass = r.error_class ?? 'iteration_limit';
        break; // later turns depend on this one; the run is scored as it stands
      }
    }

    let check: CheckResult | null = null;
    let checkError: string | null = null;
    const checkSpec = spec.evaluate?.check;
    const checkDir = workload.checkDir;
    if (checkSpec && checkDir && !stoppedEarly) {
      try {
        // The check runs on a fresh copy of the workspace with the check files copied in now; whatever the agent put at CHECK_MOUNT is left out.
        const checkRun = () =>
          runCheck({
            command: checkSpec.command,
            timeoutSeconds: checkSpec.timeout_seconds ?? 60,
            workspaceRoot: root,
            checkFilesDir: checkDir,
            mount: CHECK_MOUNT,
            logger: deps.logger,
            hostPath: deps.hostPath,
            ...(deps.sandbox ? { sandbox: deps.sandbox } : {}),
            // The workloads folder (other workloads' check/ files) is covered under bwrap and unshare.
            hide: [dirname(workload.dir)],
            limits,
          });
        check = watch ? await watch.track(where, 'running the hidden check', checkRun) : await checkRun();
      } catch (e) {
        // The check could not be run at all (no shell, sandbox refused): that is not the agent's failure.
        checkError = String((e as Error)?.message ?? e);
      }
    }
    const endedEventId = session.end(error ? 'error' : 'completed');
    const workloadSubject = { kind: 'workload' as const, id: `${job.runId}:${spec.name}:${job.pass}:${job.rep}`, session_id: session.id, turn_id: null, parent_event_id: endedEventId };
    // The judge's instrument failed: eval.failed, then the heuristic verdict without the check stands.
    if (checkError) deps.evaluator.failed(workloadSubject, 'judge_call_failed', `evaluate.check could not run: ${checkError}`);

    assertions.push(...workloadAssertions(spec.expect, turns, session.totalCostWithWorkersUsd, session.delegateCalls));
    const finalText = turns.at(-1)?.final_text ?? '';
    // The check gates the verdict (spec §5): a provider error or an interruption means the rep never reached it.
    const reached = !stoppedEarly && turns.every((t) => t.error_class === null);
    const gate = checkOutcome({ hasCheck: spec.evaluate?.check !== undefined, reached, check, checkError });
    const content = contentSignals(spec, finalText, gate);
    const stops = spec.turns.map((t) => t.expect?.stop_reason ?? 'end_turn');
    const values = { ...workloadSignals(turns, stops, assertions), ...content };
    const extra = { workload: spec.name, pass: job.pass, rep: job.rep, ...(checkError ? { check_error: checkError } : {}) };
    const rubric = spec.evaluate?.rubric ?? 'heuristic';
    let verdict: Verdict;
    if (rubric === 'heuristic') verdict = deps.evaluator.heuristic(workloadSubject, values, extra);
    else {
      const judge = deps.judgeFor?.(workload) ?? { unavailable: 'no judge configured for this run' };
      const task = spec.turns.map((t) => t.prompt).join('\n\n');
      const judged = await deps.evaluator[rubric](workloadSubject, values, { judge, task, finalResponse: finalText }, extra);
      // The judge's own calls are spend of the run (--max-cost), not of the agent: savings never include them.
      deps.spend?.afterCall(judged.judge_spend_usd);
      verdict = judged;
    }
    for (const [i, t] of turns.entries()) {
      const own = assertions.filter((a) => a.scope === `turn ${i + 1}`);
      deps.evaluator.heuristic(
        { kind: 'turn', id: t.turn_id, session_id: session.id, turn_id: t.turn_id, parent_event_id: t.completed_event_id },
        { ...turnSignals(t, stops[i]!, own), ...content },
        { workload: spec.name, turn_index: i },
        verdict.eval_id,
      );
    }
    await deps.bus.drain();
    return {
      id: deps.ids('wrun'),
      run_id: job.runId,
      workload: spec.name,
      pass: job.pass,
      rep: job.rep,
      model: turns[0]?.model ?? job.stickyModel ?? 'unknown',
      signal_strength: spec.signal_strength ?? 'high',
      // Worker sessions belong to the workload: their spend counts in its savings (catalog §8.3).
      session_ids: [session.id, ...session.workerSessionIds],
      transcripts: session.histories(),
      started_at_us: startedUs,
      ended_at_us: deps.clock.nowUs(),
      turns: turns.length,
      score: verdict.score,
      confidence: verdict.confidence,
      outcome: gate ?? outcomeFromScore(verdict.score),
      check,
      assertions,
      error,
      error_class: errorClass,
      stopped_early: stoppedEarly,
    };
  }, deps.workDir);
}

/** The aggregate `expect` block of a workload (benchmark.md §3.1). */
export function workloadAssertions(expect: NonNullable<Workload['spec']['expect']> | undefined, turns: readonly TurnResult[], cost: Decimal, delegateCalls = 0): Assertion[] {
  if (!expect) return [];
  const out: Assertion[] = [];
  const llm = turns.reduce((a, t) => a + t.llm_calls, 0);
  const hard = turns.reduce((a, t) => a + t.hard_failures, 0);
  if (expect.max_total_cost_usd !== undefined) {
    const cap = new Decimal(String(expect.max_total_cost_usd));
    out.push({ scope: 'workload', name: 'max_total_cost_usd', passed: cost.lte(cap), detail: `cost ${cost.toString()} USD; at most ${cap.toString()} USD expected` });
  }
  if (expect.min_llm_calls !== undefined) out.push({ scope: 'workload', name: 'min_llm_calls', passed: llm >= expect.min_llm_calls, detail: `made ${calls(llm, 'LLM call')}; at least ${expect.min_llm_calls} expected` });
  if (expect.max_hard_failures !== undefined)
    out.push({ scope: 'workload', name: 'max_hard_failures', passed: hard <= expect.max_hard_failures, detail: `had ${calls(hard, 'failed LLM call')}; at most ${expect.max_hard_failures} expected` });
  if (expect.min_delegate_calls !== undefined)
    out.push({ scope: 'workload', name: 'min_delegate_calls', passed: delegateCalls >= expect.min_delegate_calls, detail: `made ${calls(delegateCalls, 'delegate call')}; at least ${expect.min_delegate_calls} expected` });
  return out;
}
