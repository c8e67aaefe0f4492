import { SpanKind, SpanStatusCode, TraceFlags, type Attributes, type SpanContext } from '@opentelemetry/api';
import type { InstrumentationScope } from '@opentelemetry/core';
import { resourceFromAttributes, type Resource } from '@opentelemetry/resources';
import type { ReadableSpan, TimedEvent } from '@opentelemetry/sdk-trace-base';
import { Decimal } from 'decimal.js';
import type { BusEvent } from '../../../runtime/events/index.ts';
import type { ContentBlock, Message } from '../../../runtime/types/content.ts';
import type { Provenance } from '../../../schemas/types/report.ts';
import type { RepTrace, RunTrace } from '../run-trace.ts';
import { EVALUATION_EVENT, GEN_AI, OPERATION, ROUTE_EVENT, SCOPE_NAME, SEMCONV_SCHEMA_URL } from './semconv.ts';
import { hrTimeOfUs, spanIdOf, traceIdOf } from './span-ids.ts';

/** What goes into the spans besides structure and numbers. */
export interface SpanOptions {
  /**
   * Messages, tool arguments and results, user text and check output (catalog §4.4 `private`):
   * exported only when asked (`--include-content`), never by default.
   */
  includeContent: boolean;
  /** `service.version` of the resource. */
  serviceVersion: string;
}

/** The run-level facts every span of a run shares. */
export interface RunHeader {
  runId: string;
  createdAtUs: number;
  provenance: Provenance | null;
}

/** The event types spans are built from; anything else (pattern.recorded, cache.*) never moves a span. */
export const SPAN_SOURCE_TYPES: ReadonlySet<string> = new Set([
  'turn.started', 'turn.completed', 'route.decided', 'llm.call_started', 'llm.call_completed', 'llm.call_failed',
  'tool.called', 'tool.completed', 'tool.failed', 'delegate.started', 'eval.completed',
]);

interface SpanDraft {
  key: string;
  parentKey: string | null;
  name: string;
  kind: SpanKind;
  startUs: number;
  endUs: number;
  attributes: Attributes;
  events: TimedEvent[];
  error: string | null;
}

const str = (v: unknown): string => (typeof v === 'string' ? v : v === null || v === undefined ? '' : String(v));
const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
/** `anthropic:claude-haiku-4-5` → provider `anthropic`, model `claude-haiku-4-5`; an id without a prefix is kept whole. */
function splitModel(id: string): { provider: string | null; model: string } {
  const i = id.indexOf(':');
  return i > 0 ? { provider: id.slice(0, i), model: id.slice(i + 1) } : { provider: null, model: id };
}

/** The GenAI convention's message JSON (gen-ai-input/output-messages.json) for one canonical message. */
function conventionMessage(m: Message): Record<string, unknown> {
  const parts = m.content.map((b: ContentBlock) => {
    switch (b.type) {
      case 'text':
        return { type: 'text', content: b.text };
      case 'tool_use':
        return { type: 'tool_call', id: b.id, name: b.name, arguments: b.input };
      case 'tool_result':
        return { type: 'tool_call_response', id: b.tool_use_id, response: b.content };
    }
  });
  return { role: m.role, parts };
}

/** A session's transcript cut into what each turn's user said and what each model call answered. */
function transcriptIndex(messages: readonly Message[]): { userByTurn: Message[]; assistant: Message[]; toolInput: Map<string, unknown>; toolResult: Map<string, string> } {
  const userByTurn: Message[] = [];
  const assistant: Message[] = [];
  const toolInput = new Map<string, unknown>();
  const toolResult = new Map<string, string>();
  for (const m of messages) {
    const onlyResults = m.content.length > 0 && m.content.every((b) => b.type === 'tool_result');
    if (m.role === 'user' && !onlyResults) userByTurn.push(m);
    if (m.role === 'assistant') assistant.push(m);
    for (const b of m.content) {
      if (b.type === 'tool_use') toolInput.set(b.id, b.input);
      else if (b.type === 'tool_result') toolResult.set(b.tool_use_id, b.content);
    }
  }
  return { userByTurn, assistant, toolInput, toolResult };
}

function evaluation(name: string, timeUs: number, score: number | null, label: string, extra: Attributes = {}): TimedEvent {
  const attributes: Attributes = { [GEN_AI.evalName]: name, [GEN_AI.evalLabel]: label, ...extra };
  if (score !== null) attributes[GEN_AI.evalScore] = score;
  return { name: EVALUATION_EVENT, time: hrTimeOfUs(timeUs), attributes };
}

function routeEvent(e: BusEvent): TimedEvent {
  const chain = Array.isArray(e.payload.chain) ? (e.payload.chain as Record<string, unknown>[]) : [];
  return {
    name: ROUTE_EVENT,
    time: hrTimeOfUs(e.timestamp_us),
    attributes: {
      'metis.route.chosen_model': str(e.payload.chosen_model),
      'metis.route.winner_index': num(e.payload.winner_index),
      'metis.route.policies': chain.map((c) => str(c.policy)),
      'metis.route.verdicts': chain.map((c) => str(c.verdict)),
      'metis.route.candidates': chain.map((c) => str(c.candidate_model)),
      'metis.route.reasons': chain.map((c) => str(c.reason)),
    },
  };
}

/**
 * The spans of one rep: `invoke_agent` (the rep) → a span per turn → `chat` per model call →
 * `execute_tool` per tool call; a delegated worker's turns hang under the `delegate` tool call that
 * started them. Pure: the same rep gives the same spans.
 */
export function repSpanDrafts(run: RunHeader, rep: RepTrace, opts: Pick<SpanOptions, 'includeContent'>): SpanDraft[] {
  const r = rep.record;
  const repKey = r.id;
  const drafts: SpanDraft[] = [];
  const byKey = new Map<string, SpanDraft>();
  const add = (d: SpanDraft): SpanDraft => {
    drafts.push(d);
    byKey.set(d.key, d);
    return d;
  };
  const repModel = splitModel(r.model);
  const repSpan = add({
    key: repKey,
    parentKey: null,
    name: `${OPERATION.agent} ${r.workload}`,
    kind: SpanKind.INTERNAL,
    startUs: r.started_at_us,
    endUs: Math.max(r.started_at_us, r.ended_at_us),
    attributes: {
      [GEN_AI.operation]: OPERATION.agent,
      [GEN_AI.agentName]: r.workload,
      ...(repModel.provider ? { [GEN_AI.provider]: repModel.provider } : {}),
      [GEN_AI.requestModel]: repModel.model,
      ...(r.session_ids[0] ? { [GEN_AI.conversationId]: r.session_ids[0] } : {}),
      'metis.workload': r.workload,
      'metis.pass': r.pass,
      'metis.rep': r.rep,
      'metis.outcome': r.outcome,
      ...(r.error_class ? { 'metis.error_class': r.error_class } : {}),
    },
    events: [],
    error: r.error_class ?? null,
  });

  // Where each worker session hangs: the tool call (delegate) that started it.
  const toolSpanOfUse = new Map<string, string>();
  const workerParentUse = new Map<string, string>();
  for (const e of rep.events) {
    if (e.type === 'tool.called') toolSpanOfUse.set(str(e.payload.tool_use_id), e.id);
    if (e.type === 'delegate.started') workerParentUse.set(str(e.payload.worker_session_id), str(e.payload.tool_use_id));
  }

  let repCost = new Decimal(0);
  const sessions = new Map<string, BusEvent[]>();
  for (const e of rep.events) {
    if (!SPAN_SOURCE_TYPES.has(e.type)) continue;
    const list = sessions.get(e.session_id) ?? [];
    list.push(e);
    sessions.set(e.session_id, list);
  }
  for (const [sessionId, events] of sessions) {
    const worker = sessionId !== r.session_ids[0];
    const sessionParent = worker ? (toolSpanOfUse.get(workerParentUse.get(sessionId) ?? '') ?? repKey) : repKey;
    const transcript = transcriptIndex(rep.transcripts.get(sessionId) ?? []);
    const turnIndex = new Map<string, number>();
    const completedToStarted = new Map<string, string>();
    let completedCalls = 0;
    const completedCount = events.filter((e) => e.type === 'llm.call_completed').length;
    // Output messages map to calls by order only when the transcript has one assistant message per call.
    const outputsAligned = transcript.assistant.length === completedCount;
    for (const e of events) {
      const turnKey = e.turn_id ? `turn:${e.turn_id}` : null;
      const turn = turnKey ? byKey.get(turnKey) : undefined;
      switch (e.type) {
        case 'turn.started': {
          if (!turnKey) break;
          const index = turnIndex.size;
          turnIndex.set(e.turn_id!, index);
          const user = transcript.userByTurn[index];
          add({
            key: turnKey,
            parentKey: sessionParent,
            name: `turn ${index}`,
            kind: SpanKind.INTERNAL,
            startUs: e.timestamp_us,
            endUs: e.timestamp_us,
            attributes: {
              [GEN_AI.conversationId]: sessionId,
              'metis.session_id': sessionId,
              'metis.turn.id': e.turn_id!,
              'metis.turn.index': index,
              'metis.worker': worker,
              ...(opts.includeContent && user ? { [GEN_AI.inputMessages]: JSON.stringify([conventionMessage(user)]) } : {}),
            },
            events: [],
            error: null,
          });
          break;
        }
        case 'route.decided':
          turn?.events.push(routeEvent(e));
          break;
        case 'turn.completed':
          if (turn) {
            turn.endUs = Math.max(turn.endUs, e.timestamp_us);
            turn.attributes['metis.turn.stop_reason'] = str(e.payload.stop_reason);
            turn.attributes['metis.cost_usd'] = new Decimal(str(e.payload.total_cost_usd) || 0).toString();
          }
          break;
        case 'llm.call_started': {
          const m = splitModel(str(e.payload.model));
          add({
            key: e.id,
            parentKey: turnKey ?? sessionParent,
            name: `${OPERATION.chat} ${m.model}`,
            kind: SpanKind.CLIENT,
            startUs: e.timestamp_us,
            endUs: e.timestamp_us,
            attributes: {
              [GEN_AI.operation]: OPERATION.chat,
              [GEN_AI.provider]: m.provider ?? str(e.payload.provider),
              [GEN_AI.requestModel]: m.model,
              'metis.provider': str(e.payload.provider),
            },
            events: [],
            error: null,
          });
          break;
        }
        case 'llm.call_completed': {
          const span = e.parent_event_id ? byKey.get(e.parent_event_id) : undefined;
          if (!span) break;
          completedToStarted.set(e.id, span.key);
          const p = e.payload;
          const cost = new Decimal(str(p.cost_usd) || 0);
          repCost = repCost.plus(cost);
          const [input, cached, creation] = [num(p.input_tokens), num(p.cached_input_tokens), num(p.cache_creation_input_tokens)];
          span.endUs = Math.max(span.startUs, e.timestamp_us);
          Object.assign(span.attributes, {
            [GEN_AI.responseModel]: splitModel(str(p.model)).model,
            [GEN_AI.finishReasons]: [str(p.stop_reason)],
            // The convention's input_tokens includes cache reads and writes; the canonical one does not.
            [GEN_AI.inputTokens]: input + cached + creation,
            [GEN_AI.outputTokens]: num(p.output_tokens),
            [GEN_AI.cacheReadTokens]: cached,
            [GEN_AI.cacheCreationTokens]: creation,
            'metis.usage.uncached_input_tokens': input,
            'metis.cost_usd': cost.toString(),
            'metis.pricing_version': str(p.pricing_version),
            'metis.latency_ms': num(p.latency_ms),
            ...(typeof p.cache_tier === 'string' ? { 'metis.cache_tier': p.cache_tier } : {}),
          });
          const out = transcript.assistant[completedCalls];
          if (opts.includeContent && outputsAligned && out) span.attributes[GEN_AI.outputMessages] = JSON.stringify([conventionMessage(out)]);
          completedCalls += 1;
          break;
        }
        case 'llm.call_failed': {
          const span = e.parent_event_id ? byKey.get(e.parent_event_id) : undefined;
          if (!span) break;
          span.endUs = Math.max(span.startUs, e.timestamp_us);
          span.error = str(e.payload.error_class) || 'other';
          span.attributes[GEN_AI.errorType] = span.error;
          span.attributes['metis.latency_ms'] = num(e.payload.latency_ms);
          break;
        }
        case 'tool.called': {
          const id = str(e.payload.tool_use_id);
          const name = str(e.payload.tool_name);
          const parent = (e.parent_event_id && completedToStarted.get(e.parent_event_id)) || turnKey || sessionParent;
          const args = transcript.toolInput.get(id);
          add({
            key: e.id,
            parentKey: parent,
            name: `${OPERATION.tool} ${name}`,
            kind: SpanKind.INTERNAL,
            startUs: e.timestamp_us,
            endUs: e.timestamp_us,
            attributes: {
              [GEN_AI.operation]: OPERATION.tool,
              [GEN_AI.toolName]: name,
              [GEN_AI.toolCallId]: id,
              [GEN_AI.toolType]: 'function',
              'metis.tool.side_effects': str(e.payload.side_effects),
              ...(opts.includeContent && args !== undefined ? { [GEN_AI.toolArguments]: JSON.stringify(args) } : {}),
            },
            events: [],
            error: null,
          });
          break;
        }
        case 'tool.completed':
        case 'tool.failed': {
          const span = e.parent_event_id ? byKey.get(e.parent_event_id) : undefined;
          if (!span) break;
          span.endUs = Math.max(span.startUs, e.timestamp_us);
          const ok = e.type === 'tool.completed' && e.payload.success !== false;
          span.attributes['metis.tool.success'] = ok;
          span.attributes['metis.latency_ms'] = num(e.payload.latency_ms);
          if (e.type === 'tool.failed') {
            span.error = str(e.payload.error_class) || 'execution_error';
            span.attributes[GEN_AI.errorType] = span.error;
          }
          const result = transcript.toolResult.get(str(e.payload.tool_use_id));
          if (opts.includeContent && result !== undefined) span.attributes[GEN_AI.toolResult] = result;
          break;
        }
        case 'eval.completed': {
          const p = e.payload;
          const score = typeof p.score === 'number' ? p.score : null;
          const extra: Attributes = typeof p.confidence === 'number' ? { 'metis.eval.confidence': p.confidence } : {};
          if (p.subject_kind === 'turn' && turn) turn.events.push(evaluation('metis.turn_score', e.timestamp_us, score, score !== null && score >= 0.5 ? 'pass' : 'fail', extra));
          else if (p.subject_kind === 'workload') repSpan.events.push(evaluation('metis.gated_score', e.timestamp_us, score, r.outcome, extra));
          break;
        }
      }
      // A turn lasts until its last event (a turn cut short has no turn.completed).
      if (turn) turn.endUs = Math.max(turn.endUs, e.timestamp_us);
    }
  }
  if (r.check) {
    const label = r.check.timed_out ? 'timed_out' : r.check.passed ? 'pass' : 'fail';
    const extra: Attributes = opts.includeContent ? { [GEN_AI.evalExplanation]: r.check.output_tail } : {};
    repSpan.events.unshift(evaluation('metis.hidden_check', repSpan.endUs, r.check.passed ? 1 : 0, label, extra));
  }
  repSpan.attributes['metis.cost_usd'] = repCost.toString();
  for (const d of drafts) if (d !== repSpan) d.parentKey ??= repKey;
  return drafts;
}

/** The run span: `invoke_workflow` over every rep, from the run's creation to its last rep's end. */
export function runSpanDraft(run: RunHeader, reps: readonly { startUs: number; endUs: number; costUsd: Decimal }[]): SpanDraft {
  const start = Math.min(run.createdAtUs, ...reps.map((r) => r.startUs));
  const end = Math.max(start, ...reps.map((r) => r.endUs));
  const p = run.provenance;
  return {
    key: `run:${run.runId}`,
    parentKey: null,
    name: `${OPERATION.workflow} metis-bench`,
    kind: SpanKind.INTERNAL,
    startUs: start,
    endUs: end,
    attributes: {
      [GEN_AI.operation]: OPERATION.workflow,
      [GEN_AI.workflowName]: 'metis-bench',
      'metis.run_id': run.runId,
      ...(p ? { 'metis.protocol': p.protocol, 'metis.simulated': p.actual_provider === 'sim', 'metis.pricing_version': p.pricing_version } : {}),
      'metis.cost_usd': reps.reduce((a, r) => a.plus(r.costUsd), new Decimal(0)).toString(),
    },
    events: [],
    error: null,
  };
}

/** The resource and scope shared by a run's spans; one object each so the serializer groups them. */
export interface SpanContextOfRun {
  runId: string;
  resource: Resource;
  scope: InstrumentationScope;
}

/** The resource (service, run, pinned schema URL) and instrumentation scope of a run's spans. */
export function runContext(run: RunHeader, serviceVersion: string): SpanContextOfRun {
  const p = run.provenance;
  const resource = resourceFromAttributes(
    {
      [GEN_AI.serviceName]: 'metis-bench',
      [GEN_AI.serviceVersion]: serviceVersion,
      'metis.run_id': run.runId,
      ...(p ? { 'metis.simulated': p.actual_provider === 'sim' } : {}),
    },
    { schemaUrl: SEMCONV_SCHEMA_URL },
  );
  return { runId: run.runId, resource, scope: { name: SCOPE_NAME, version: serviceVersion, schemaUrl: SEMCONV_SCHEMA_URL } };
}

/** A draft as the SDK's ReadableSpan, with ids derived from the run id and the draft's key. */
export function toReadableSpan(ctx: SpanContextOfRun, d: SpanDraft, runSpanKey: string): ReadableSpan {
  const traceId = traceIdOf(ctx.runId);
  const own: SpanContext = { traceId, spanId: spanIdOf(ctx.runId, d.key), traceFlags: TraceFlags.SAMPLED };
  const parentKey = d.key === runSpanKey ? null : (d.parentKey ?? runSpanKey);
  const parent: SpanContext | undefined = parentKey ? { traceId, spanId: spanIdOf(ctx.runId, parentKey), traceFlags: TraceFlags.SAMPLED } : undefined;
  const startTime = hrTimeOfUs(d.startUs);
  const endUs = Math.max(d.startUs, d.endUs);
  return {
    name: d.name,
    kind: d.kind,
    spanContext: () => own,
    ...(parent ? { parentSpanContext: parent } : {}),
    startTime,
    endTime: hrTimeOfUs(endUs),
    duration: hrTimeOfUs(endUs - d.startUs),
    status: d.error ? { code: SpanStatusCode.ERROR, message: d.error } : { code: SpanStatusCode.UNSET },
    attributes: d.attributes,
    links: [],
    events: d.events,
    ended: true,
    resource: ctx.resource,
    instrumentationScope: ctx.scope,
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
  };
}

/** The cost a rep's spans carry (for the run span's total). */
export function repCostOf(drafts: readonly SpanDraft[]): Decimal {
  return new Decimal(String(drafts[0]?.attributes['metis.cost_usd'] ?? '0'));
}

/** The spans of one rep, ready to serialize or send. */
export function repSpans(ctx: SpanContextOfRun, run: RunHeader, rep: RepTrace, opts: Pick<SpanOptions, 'includeContent'>): { spans: ReadableSpan[]; startUs: number; endUs: number; costUsd: Decimal } {
  const drafts = repSpanDrafts(run, rep, opts);
  const runKey = `run:${run.runId}`;
  return { spans: drafts.map((d) => toReadableSpan(ctx, d, runKey)), startUs: drafts[0]!.startUs, endUs: drafts[0]!.endUs, costUsd: repCostOf(drafts) };
}

/** Every span of a run, the run span first, then each rep's in the order the DB reports them. */
export function runSpans(run: RunTrace, opts: SpanOptions): ReadableSpan[] {
  const ctx = runContext(run, opts.serviceVersion);
  const reps = run.reps.map((rep) => repSpans(ctx, run, rep, opts));
  const root = runSpanDraft(run, reps);
  return [toReadableSpan(ctx, root, root.key), ...reps.flatMap((r) => r.spans)];
}
