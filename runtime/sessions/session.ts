import { Decimal } from 'decimal.js';
import type { IdFactory } from '../core/ids.ts';
import type { Logger } from '../core/logger.ts';
import type { Message } from '../types/content.ts';
import { runTurnLoop, sha256, type TurnLoopDeps } from './agent-loop.ts';
import { estimateTokens } from './estimate-tokens.ts';
import { createContextAssembler, type ContextAssembler } from '../context/index.ts';
import type { TurnResult } from './turn-result.ts';
import type { TurnRouter } from '../routing/router.ts';
import type { DelegateOutcome, DelegateRequest, DelegateTier } from '../tools/tool.ts';
import { runDelegation } from './delegation.ts';

/** Options for one session (one workload run drives one session). */
export interface SessionOptions {
  workspaceRoot: string;
  /** Manual sticky model (routing slot 2), e.g. `--model` or an A3 forced pass. */
  stickyModel?: string | null;
  isWorker?: boolean;
  parentSessionId?: string | null;
  /** The benchmark workload this session runs; part of each turn's fingerprint. */
  workloadId?: string | null;
  /** Worker sessions: the tier the planner asked for (routing slot 5). */
  delegateTier?: DelegateTier | null;
  /** Worker sessions: the only tools they may use. */
  allowedTools?: ReadonlySet<string> | null;
}

/** Per-turn options; temperature is threaded to every request of the turn. */
export interface TurnOptions {
  temperature?: number;
  maxTokens?: number;
  /** Routing slot 1. */
  overrideModel?: string | null;
  /** Aborts the provider call in flight (Ctrl-C); the turn then ends with error_class `cancelled`. */
  signal?: AbortSignal;
}

/** Everything a session needs; built once per run by the caller. */
export interface SessionDeps extends TurnLoopDeps {
  router: TurnRouter;
  ids: IdFactory;
  logger: Logger;
  maxIterations: number;
}

/** One agent session: a workspace, a message history, and the turns run in it. */
export class Session {
  readonly id: string;
  readonly history: Message[] = [];
  private turns = 0;
  private cost = new Decimal(0);
  private readonly startedUs: number;
  private ended = false;
  private readonly workers: Session[] = [];
  private delegations = 0;
  /** Tools, stable system segment and skill budget, fixed at creation (context-assembler.md §5). */
  readonly context: ContextAssembler;

  constructor(
    private readonly deps: SessionDeps,
    readonly options: SessionOptions,
  ) {
    this.id = deps.ids('sess');
    this.startedUs = deps.clock.nowUs();
    const created = deps.bus.emit({
      session_id: this.id,
      type: 'session.created',
      actor: 'system',
      payload: {
        workspace_path: options.workspaceRoot,
        workspace_hash: sha256(options.workspaceRoot),
        initial_active_model: options.stickyModel ?? null,
        routing_policy_version: deps.router.policyVersion(options.workspaceRoot),
      },
    });
    // After session.created: pre-activated skills emit skill.loaded with it as parent (§5.2.2).
    this.context = createContextAssembler({
      workspaceRoot: options.workspaceRoot,
      session_id: this.id,
      parent_event_id: created.id,
      tools: deps.tools,
      allowedTools: options.allowedTools ?? null,
      bus: deps.bus,
      logger: deps.logger,
      clock: deps.clock,
    });
  }

  /** Total cost of the session's own LLM calls so far (workers' spend is in their sessions). */
  get totalCostUsd(): Decimal {
    return this.cost;
  }

  /** Own spend plus every worker's: what the delegating work cost in all. */
  get totalCostWithWorkersUsd(): Decimal {
    return this.workers.reduce((sum, w) => sum.plus(w.totalCostUsd), this.cost);
  }

  /** Ids of the worker sessions this session delegated to, in order. */
  get workerSessionIds(): string[] {
    return this.workers.map((w) => w.id);
  }

  /** This session's message history and each worker's, depth first: what `bench view` shows of a rep. */
  histories(): { session_id: string; messages: Message[] }[] {
    return [{ session_id: this.id, messages: this.history }, ...this.workers.flatMap((w) => w.histories())];
  }

  /** How many delegate calls this session made (delegate.started, or failed before a worker existed). */
  get delegateCalls(): number {
    return this.delegations;
  }

  /** Runs one user turn to its end: turn.started → route.decided → LLM/tool cycles → turn.completed. */
  async submitTurn(prompt: string, opts: TurnOptions = {}): Promise<TurnResult> {
    if (this.ended) throw new Error(`session ${this.id} has ended`);
    const { bus, ids } = this.deps;
    const turn_id = ids('turn');
    const hadTools = this.history.some((m) => m.content.some((b) => b.type === 'tool_use'));
    this.history.push({ role: 'user', content: [{ type: 'text', text: prompt }] });
    const system = this.context.segments();
    const estimated = estimateTokens({ ...system, tools: this.context.tools.specs(), messages: this.history });
    const started = bus.emit({
      session_id: this.id,
      turn_id,
      type: 'turn.started',
      actor: 'user',
      payload: {
        user_message_hash: sha256(prompt),
        user_message_text_redacted: null,
        estimated_input_tokens: estimated,
        has_images: false,
        has_tool_calls_in_history: hadTools,
      },
    });
    const decision = this.deps.router.decide({
      workspaceRoot: this.options.workspaceRoot,
      userMessage: prompt,
      history: this.history,
      estimatedInputTokens: estimated,
      toolsOffered: true,
      hasImages: false,
      stickyModel: this.options.stickyModel ?? null,
      overrideModel: opts.overrideModel ?? null,
      workloadId: this.options.workloadId ?? null,
      delegateTier: this.options.delegateTier ?? null,
      session_id: this.id,
      turn_id,
      parent_event_id: started.id,
    });
    this.turns += 1;
    const result = await runTurnLoop(
      {
        session_id: this.id,
        turn_id,
        workspaceRoot: this.options.workspaceRoot,
        model: decision.chosen_model,
        history: this.history,
        system,
        temperature: opts.temperature ?? 0,
        maxTokens: opts.maxTokens ?? 8192,
        maxIterations: this.deps.maxIterations,
        isWorker: this.options.isWorker ?? false,
        turnStartedId: started.id,
        allowedTools: this.options.allowedTools ?? null,
        ...(opts.signal ? { signal: opts.signal } : {}),
        // Workers do not delegate further (no recursive delegation in v1, catalog §6.8).
        delegate: this.options.isWorker ? null : (req) => this.delegate(req, turn_id, opts.temperature ?? 0, opts.signal),
      },
      { ...this.deps, tools: this.context.tools },
    );
    this.cost = this.cost.plus(result.cost_usd);
    return result;
  }

  private delegate(req: DelegateRequest, turn_id: string, temperature: number, signal?: AbortSignal): Promise<DelegateOutcome> {
    this.delegations += 1;
    const spawn = (o: { delegateTier: DelegateRequest['tier']; allowedTools: ReadonlySet<string> }) => {
      const worker = new Session(this.deps, {
        workspaceRoot: this.options.workspaceRoot,
        isWorker: true,
        parentSessionId: this.id,
        // A forced arm (A3 Pass A/B, --model) forces its workers too: the sticky model outranks the tier (slot 2 over slot 5).
        stickyModel: this.options.stickyModel ?? null,
        workloadId: this.options.workloadId ?? null,
        delegateTier: o.delegateTier,
        allowedTools: o.allowedTools,
      });
      this.workers.push(worker);
      return worker;
    };
    return runDelegation(req, { session: this, turn_id, temperature, spawn, ...(signal ? { signal } : {}) }, this.deps, this.context.tools.specs().map((t) => t.name));
  }

  /** Emits session.ended once; later calls are no-ops. */
  end(disposition: 'completed' | 'abandoned' | 'error'): string | null {
    if (this.ended) return null;
    this.ended = true;
    const ev = this.deps.bus.emit({
      session_id: this.id,
      type: 'session.ended',
      actor: 'system',
      payload: {
        disposition,
        turn_count: this.turns,
        total_cost_usd: this.cost.toString(),
        duration_seconds: (this.deps.clock.nowUs() - this.startedUs) / 1e6,
      },
    });
    return ev.id;
  }
}
