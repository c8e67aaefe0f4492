import { Decimal } from 'decimal.js';
import type { TurnRouter } from '../routing/router.ts';
import type { DelegateOutcome, DelegateRequest } from '../tools/tool.ts';
import type { TurnLoopDeps } from './agent-loop.ts';
import type { TurnResult } from './turn-result.ts';

// What a delegation uses of a session, by shape: session.ts runs delegations, so this module does not
// import it (no import circle; docs/architecture.md, Floors). A Session is both.
/** The planner's session: who asks, and the sticky model and workspace its workers inherit. */
export interface DelegatingSession {
  readonly id: string;
  readonly options: { readonly stickyModel?: string | null; readonly workspaceRoot: string };
}

/** The worker's session: one turn, then ended; its spend is its own. */
export interface WorkerSession {
  readonly id: string;
  submitTurn(prompt: string, opts: { temperature?: number; signal?: AbortSignal }): Promise<TurnResult>;
  end(disposition: 'completed' | 'abandoned' | 'error'): string | null;
  readonly totalCostUsd: Decimal;
}

/** What a delegation needs of the session's dependencies. */
export type DelegationDeps = Pick<TurnLoopDeps, 'bus' | 'clock' | 'prices'> & { router: Pick<TurnRouter, 'tierModel'> };

/** The planner side of a delegation: who asks, in which turn, at what temperature. */
export interface PlannerContext {
  session: DelegatingSession;
  turn_id: string;
  temperature: number;
  /** The planner turn's abort signal (Ctrl-C), passed to the worker's calls. */
  signal?: AbortSignal;
  /** Creates the worker session (a Session, linked to the planner). */
  spawn(options: { delegateTier: DelegateRequest['tier']; allowedTools: ReadonlySet<string> }): WorkerSession;
}

/**
 * Runs one delegated sub-task (catalog §6.8, §8.3): delegate.started → the worker session (its own
 * session.created … session.ended) → delegate.completed, or delegate.failed when no model serves the
 * tier or the worker's turn fails. The worker cannot delegate further; its spend is its own session's
 * and rolls up to the planner's workload through the session link.
 */
export async function runDelegation(req: DelegateRequest, planner: PlannerContext, deps: DelegationDeps, toolNames: readonly string[]): Promise<DelegateOutcome> {
  const { bus, clock } = deps;
  const base = { session_id: planner.session.id, turn_id: planner.turn_id, actor: 'system' as const };
  const pricing = deps.prices.version;
  // A forced (sticky) planner forces its workers too (slot 2 outranks slot 5), so that is the model they run on.
  const resolved = planner.session.options.stickyModel ?? deps.router.tierModel(req.tier, planner.session.options.workspaceRoot);
  if (!resolved) {
    const message = `no model is configured for tier '${req.tier}'`;
    bus.emit({ ...base, parent_event_id: req.llm_event_id, type: 'delegate.failed', payload: { tool_use_id: req.tool_use_id, worker_session_id: null, failure_mode: 'no_model_available_for_tier', error_message: message, worker_total_cost_usd: '0', pricing_version: pricing } });
    return { ok: false, output: message };
  }
  const usable = new Set(toolNames.filter((t) => t !== 'delegate'));
  const asked = req.allowed_tools.length ? req.allowed_tools : [...usable];
  const allowed = new Set(asked.filter((t) => usable.has(t)));
  const dropped = asked.filter((t) => !usable.has(t));
  const prompt = req.context_mode === 'explicit' && req.context.length ? `${req.task}\n\nContext:\n${req.context.map((c) => `- ${c}`).join('\n')}` : req.task;
  const worker = planner.spawn({ delegateTier: req.tier, allowedTools: allowed });
  const started = bus.emit({
    ...base,
    parent_event_id: req.llm_event_id,
    type: 'delegate.started',
    payload: {
      tool_use_id: req.tool_use_id,
      worker_session_id: worker.id,
      tier: req.tier,
      resolved_model: resolved,
      context_mode: req.context_mode,
      context_reference_count: req.context_mode === 'explicit' ? req.context.length : 0,
      task_size_tokens: Math.ceil(prompt.length / 4),
      allowed_tool_count: allowed.size,
      dropped_tools: dropped,
    },
  });
  const t0 = clock.nowUs();
  let error: string | null;
  let output = '';
  let stats = { llm: 0, tools: 0, model: resolved };
  try {
    const r = await worker.submitTurn(prompt, { temperature: planner.temperature, ...(planner.signal ? { signal: planner.signal } : {}) });
    output = r.final_text;
    stats = { llm: r.llm_calls, tools: r.tool_calls, model: r.model };
    error = r.error;
  } catch (e) {
    error = String((e as Error)?.message ?? e);
    if ((e as Error)?.name === 'SpendLimitError') {
      worker.end('error');
      throw e;
    }
  }
  worker.end(error ? 'error' : 'completed');
  const cost = worker.totalCostUsd;
  if (error) {
    bus.emit({ ...base, parent_event_id: started.id, type: 'delegate.failed', payload: { tool_use_id: req.tool_use_id, worker_session_id: worker.id, failure_mode: 'worker_error', error_message: error.slice(0, 500), worker_total_cost_usd: cost.toString(), pricing_version: pricing } });
    return { ok: false, output: error };
  }
  bus.emit({
    ...base,
    parent_event_id: started.id,
    type: 'delegate.completed',
    payload: {
      tool_use_id: req.tool_use_id,
      worker_session_id: worker.id,
      success: true,
      output_size_bytes: Buffer.byteLength(output, 'utf8'),
      worker_total_cost_usd: new Decimal(cost).toString(),
      pricing_version: pricing,
      turn_count: 1,
      llm_call_count: stats.llm,
      tool_call_count: stats.tools,
      wall_time_seconds: (clock.nowUs() - t0) / 1e6,
      model: stats.model,
    },
  });
  return { ok: true, output };
}
