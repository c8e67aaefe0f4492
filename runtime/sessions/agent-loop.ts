import { createHash } from 'node:crypto';
import { Decimal } from 'decimal.js';
import type { EventBus } from '../events/event.ts';
import type { Provider } from '../providers/provider.ts';
import { ProviderError } from '../providers/provider.ts';
import { CassetteMissError } from '../providers/cassette/index.ts';
import { MAX_RESPONSE_BYTES } from '../providers/response-cap.ts';
import type { PriceTable } from '../pricing/rates.ts';
import { costOf } from '../pricing/index.ts';
import type { ToolContext, ToolDispatcher } from '../tools/index.ts';
import type { Clock } from '../core/clock.ts';
import { textOf, toolUsesOf, type Message, type ToolResultBlock } from '../types/content.ts';
import type { CanonicalRequest } from '../types/request.ts';
import { callContextMetadata } from '../events/call-context.ts';
import { addUsage, ZERO_USAGE, type CanonicalResponse } from '../types/response.ts';
import type { SystemSegments } from '../context/index.ts';
import type { TurnResult } from './turn-result.ts';
import { estimateTokens } from './estimate-tokens.ts';
import type { SpendGuard } from './spend-guard.ts';
import { checkResponse } from './response-check.ts';
import { contextBudget, fitToolResults } from './context-fit.ts';

/** What the loop needs from the session for one turn. */
export interface TurnLoopInput {
  session_id: string;
  turn_id: string;
  workspaceRoot: string;
  model: string;
  /** Messages so far; the loop appends to it in place (the session owns it). */
  history: Message[];
  system: SystemSegments;
  temperature: number;
  maxTokens: number;
  maxIterations: number;
  isWorker: boolean;
  /** turn.started id: parent of the first llm.call_started and of turn.completed. */
  turnStartedId: string;
  /** Tools this session may use (workers); null offers every tool. */
  allowedTools: ReadonlySet<string> | null;
  /** Runs a worker for the `delegate` tool; null inside workers. */
  delegate: ToolContext['delegate'] | null;
  /** Passed to every provider call: aborting it cancels the call in flight (error_class `cancelled`). */
  signal?: AbortSignal;
}

/** The collaborators of the loop. */
export interface TurnLoopDeps {
  bus: EventBus;
  provider: Provider;
  tools: ToolDispatcher;
  prices: PriceTable;
  clock: Clock;
  /** `--max-cost`: refuses a call that could pass the run's bound. */
  spend?: SpendGuard;
  /** The most characters of text and tool input one answer may carry before it fails as `response_too_large`. Default MAX_RESPONSE_BYTES. */
  maxResponseBytes?: number;
  /** Tool calls of one answer that run; the rest get an error result. Default MAX_TOOL_CALLS_PER_ANSWER. */
  maxToolCallsPerAnswer?: number;
}

/**
 * Tool calls run per answer: 64. Models make a handful of parallel calls; an answer asking for
 * thousands (8 MiB of tool_use blocks is ~100k reads of up to 32 KB each) would exhaust memory.
 */
export const MAX_TOOL_CALLS_PER_ANSWER = 64;

/**
 * Runs LLM calls and tool cycles until the model ends its turn (catalog §8.1): each call is
 * llm.call_started → llm.call_completed | llm.call_failed, each tool_use is dispatched and its
 * result fed back. The iteration guard stops a model that never ends its turn.
 *
 * Whatever the provider answers, the turn ends normally: a thrown ProviderError, any other throw
 * from the adapter, a response with missing or mistyped fields (`malformed_response`) or one past
 * the size cap (`response_too_large`) becomes llm.call_failed and the turn's `error_class`. Only a
 * replay miss (the run is not what was recorded) and `--max-cost` still throw. At the start, after
 * each batch of tool results and at the end, the oldest tool results are elided when the history
 * would not fit the model's window (context-fit.ts).
 */
export async function runTurnLoop(input: TurnLoopInput, deps: TurnLoopDeps): Promise<TurnResult> {
  const { bus, provider, tools, prices, clock } = deps;
  const base = { session_id: input.session_id, turn_id: input.turn_id };
  const rates = prices.rates(input.model);
  const startedUs = clock.nowUs();
  let parent = input.turnStartedId;
  let usage = ZERO_USAGE;
  let cost = new Decimal(0);
  let llmCalls = 0;
  let toolCalls = 0;
  let failedTools = 0;
  let hardFailures = 0;
  let last: CanonicalResponse | null = null;
  let error: string | null = null;
  let errorClass: string | null = null;
  let window: number | null = null;
  try {
    window = provider.capabilities(input.model).context_window;
  } catch {
    // An unknown model: the call below fails with the provider's own classified error.
  }
  const budget = window ? contextBudget(window, input.maxTokens) : null;
  const offered = input.allowedTools ? tools.specs().filter((t) => input.allowedTools!.has(t.name)) : tools.specs();
  const fit = (): void => {
    if (budget !== null) fitToolResults({ ...input.system, tools: offered, messages: input.history }, budget);
  };
  fit();

  const fail = (pe: ProviderError, startedId: string, t0: number): void => {
    hardFailures += 1;
    bus.emit({
      ...base,
      parent_event_id: startedId,
      type: 'llm.call_failed',
      actor: input.isWorker ? 'worker' : 'agent',
      payload: {
        model: input.model,
        provider: provider.name,
        error_class: pe.errorClass,
        error_message_redacted: pe.message.slice(0, 500),
        retry_count: pe.retryCount,
        latency_ms: Math.max(0, Math.round((clock.nowUs() - t0) / 1000)),
      },
    });
    error = `${pe.errorClass}: ${pe.message.slice(0, 2000)}`;
    errorClass = pe.errorClass;
  };

  while (true) {
    if (llmCalls >= input.maxIterations) {
      error = `iteration guard: ${input.maxIterations} LLM calls without end_turn`;
      break;
    }
    const request: CanonicalRequest = {
      model: input.model,
      system: input.system.system,
      system_volatile: input.system.system_volatile,
      tools: offered,
      messages: input.history,
      temperature: input.temperature,
      max_tokens: input.maxTokens,
      // Local bookkeeping, never sent on the wire: lets the simulated provider play a worker's script.
      ...(input.isWorker ? { metadata: { session_role: 'worker' } } : {}),
    };
    const estimated = estimateTokens(request);
    deps.spend?.beforeCall(rates, estimated, input.maxTokens);
    const started = bus.emit({
      ...base,
      parent_event_id: parent,
      type: 'llm.call_started',
      actor: input.isWorker ? 'worker' : 'agent',
      payload: { model: input.model, provider: provider.name, estimated_input_tokens: estimated, request_id: `${input.turn_id}:${llmCalls}`, is_worker: input.isWorker },
    });
    llmCalls += 1;
    const t0 = clock.nowUs();
    // The call's place in the trace, for whatever runs behind the provider (the semantic cache's events).
    const traced: CanonicalRequest = { ...request, metadata: { ...request.metadata, ...callContextMetadata({ session_id: input.session_id, turn_id: input.turn_id, call_event_id: started.id }) } };
    let answer: unknown;
    try {
      answer = await provider.complete(traced, input.signal);
    } catch (e) {
      // A replay miss means the run is not what was recorded: that stops the run (exit 2), not the rep.
      if (e instanceof CassetteMissError) throw e;
      // Any other throw is the provider's failure (an adapter bug included): the rep ends, the suite goes on.
      fail(e instanceof ProviderError ? e : new ProviderError(`${provider.name}: the provider raised ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}`, 'other'), started.id, t0);
      break;
    }
    const problem = checkResponse(answer, deps.maxResponseBytes ?? MAX_RESPONSE_BYTES);
    if (problem) {
      fail(new ProviderError(`${provider.name}: ${problem.message}`, problem.errorClass), started.id, t0);
      break;
    }
    const response = answer as CanonicalResponse;
    last = response;
    usage = addUsage(usage, response.usage);
    // A cache hit called no model: its row costs what serving it cost (zero usage, so $0 here when local).
    const served = response.served_from_cache ?? null;
    const callCost = served ? new Decimal(served.served_cost_usd) : rates ? costOf(response.usage, rates) : new Decimal(0);
    cost = cost.plus(callCost);
    deps.spend?.afterCall(callCost);
    const uses = toolUsesOf(response.content);
    const completed = bus.emit({
      ...base,
      parent_event_id: started.id,
      type: 'llm.call_completed',
      actor: input.isWorker ? 'worker' : 'agent',
      payload: {
        model: response.model,
        provider: provider.name,
        input_tokens: response.usage.input_tokens,
        output_tokens: response.usage.output_tokens,
        cached_input_tokens: response.usage.cached_input_tokens,
        cache_creation_input_tokens: response.usage.cache_creation_input_tokens,
        cost_usd: callCost.toString(),
        pricing_version: prices.version,
        latency_ms: Math.round(response.latency_ms),
        stop_reason: response.stop_reason,
        produced_tool_calls: uses.length,
        produced_thinking_blocks: 0,
        ...(served ? { cache_tier: served.tier } : {}),
      },
    });
    parent = completed.id;
    input.history.push({ role: 'assistant', content: response.content });
    if (response.stop_reason !== 'tool_use' || uses.length === 0) break;

    const results: ToolResultBlock[] = [];
    const cap = deps.maxToolCallsPerAnswer ?? MAX_TOOL_CALLS_PER_ANSWER;
    let limit: string | null = null;
    for (const [k, call] of uses.entries()) {
      if (k >= cap || limit !== null) {
        // After a resource bound, the answer's other calls are not run either: the turn ends.
        if (limit !== null) {
          results.push({ type: 'tool_result', tool_use_id: call.id, content: 'not run: an earlier call of this answer ran into a resource bound', is_error: true });
          toolCalls += 1;
          failedTools += 1;
          continue;
        }
        // Not run: the model learns the bound, and memory stays bounded whatever one answer asks for.
        results.push({ type: 'tool_result', tool_use_id: call.id, content: `not run: this answer asked for ${uses.length} tool calls; at most ${cap} run per answer`, is_error: true });
        toolCalls += 1;
        failedTools += 1;
        continue;
      }
      const r = await tools.dispatch(call, {
        workspaceRoot: input.workspaceRoot,
        ...base,
        parent_event_id: completed.id,
        ...(input.isWorker ? { actor: 'worker' as const } : {}),
        ...(input.allowedTools ? { allowedTools: input.allowedTools } : {}),
        ...(input.delegate ? { delegate: input.delegate } : {}),
        ...(input.signal ? { signal: input.signal } : {}),
      });
      toolCalls += 1;
      if (r.failed) failedTools += 1;
      results.push(r.result);
      parent = r.event_id;
      if (r.resourceLimit !== undefined) limit = r.resourceLimit;
    }
    input.history.push({ role: 'user', content: results });
    fit();
    if (limit !== null) {
      // A bound of the sandbox (disk, processes, ...): the rep ends as resource_limit, the run goes on.
      error = `resource_limit: ${limit}`;
      errorClass = 'resource_limit';
      break;
    }
  }
  // Again after the last answer, so the next turn's routing sees a history that fits.
  fit();

  const stop = last?.stop_reason ?? null;
  const finalText = last ? textOf(last.content) : '';
  const done = bus.emit({
    ...base,
    parent_event_id: input.turnStartedId,
    type: 'turn.completed',
    actor: input.isWorker ? 'worker' : 'agent',
    payload: {
      stop_reason: error ? 'max_tokens' : (stop ?? 'end_turn'),
      llm_call_count: llmCalls,
      tool_call_count: toolCalls,
      total_input_tokens: usage.input_tokens + usage.cached_input_tokens + usage.cache_creation_input_tokens,
      total_output_tokens: usage.output_tokens,
      total_cost_usd: cost.toString(),
      wall_time_seconds: (clock.nowUs() - startedUs) / 1e6,
      signals_extra: error ? { error } : null,
    },
  });
  return {
    turn_id: input.turn_id,
    session_id: input.session_id,
    model: input.model,
    stop_reason: stop,
    llm_calls: llmCalls,
    tool_calls: toolCalls,
    failed_tool_calls: failedTools,
    hard_failures: hardFailures,
    final_text: finalText,
    usage,
    cost_usd: cost,
    error,
    error_class: errorClass,
    completed_event_id: done.id,
  };
}

/** SHA-256 hex of a string (user message hashes, workspace hashes). */
export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
