import type { ValidateFunction } from 'ajv';
import type { Clock } from '../core/clock.ts';
import type { Logger } from '../core/logger.ts';
import { formatAjvErrors, sharedAjv } from '../core/schemas.ts';
import type { Actor, EventBus } from '../events/event.ts';
import { scrubWorkspacePaths } from '../sandbox/index.ts';
import type { ToolResultBlock, ToolUseBlock } from '../types/content.ts';
import type { ToolSpec } from '../types/request.ts';
import type {
  ToolCalledPayload,
  ToolCompletedPayload,
  ToolFailedPayload,
  ToolInputInvalidPayload,
} from '../../schemas/types/events.ts';
import { inputDigest } from './input-hash.ts';
import { ToolError, type Tool, type ToolContext, type ToolErrorClass } from './tool.ts';

/** Collaborators of the dispatcher. */
export interface ToolDispatcherOptions {
  tools: readonly Tool[];
  bus: EventBus;
  logger: Logger;
  clock: Clock;
}

/** Where one call runs and where its events hang in the causal chain. */
export interface DispatchContext {
  workspaceRoot: string;
  session_id: string;
  turn_id: string | null;
  /** The llm.call_completed whose response asked for this call. */
  parent_event_id: string;
  /** Actor of tool.called; `agent` unless a delegated worker made the call. */
  actor?: Actor;
  signal?: AbortSignal;
  /** Passed to tools as ToolContext.delegate (the `delegate` tool). */
  delegate?: ToolContext['delegate'];
  /** When set, only these tools may run in this session (delegated workers). */
  allowedTools?: ReadonlySet<string>;
}

/** The result for the model, the id of the last event emitted (parent of the next llm.call_started), and whether the call failed. */
export interface DispatchResult {
  result: ToolResultBlock;
  event_id: string;
  failed: boolean;
  /** Set when the call ran into a resource bound: the message naming it. The turn ends there, as `resource_limit`. */
  resourceLimit?: string;
}

/** Validates and runs tool calls, emitting the tool.* events of catalog §6.4. */
export interface ToolDispatcher {
  /** Tool specs for a request, sorted by name so the request prefix is byte-stable. */
  specs(): ToolSpec[];
  dispatch(call: ToolUseBlock, ctx: DispatchContext): Promise<DispatchResult>;
}

/** One line, no workspace location: what the model and the trace see of a failure. */
function oneLine(text: string, root: string): string {
  return scrubWorkspacePaths(text, root).replace(/\s*\n\s*/g, ' ').trim();
}

const MAX_NAME_CHARS = 200;

/** A tool name as the model sent it, cut to MAX_NAME_CHARS for messages and the trace. */
function shortName(name: unknown): string {
  const text = typeof name === 'string' ? name : String(name);
  return text.length > MAX_NAME_CHARS ? `${text.slice(0, MAX_NAME_CHARS)}…` : text;
}

/** Creates a dispatcher over `tools`; each input schema is compiled once, here. */
export function createToolDispatcher(opts: ToolDispatcherOptions): ToolDispatcher {
  const { bus, logger, clock } = opts;
  const byName = new Map<string, { tool: Tool; validate: ValidateFunction }>();
  for (const tool of opts.tools) {
    if (byName.has(tool.name)) throw new Error(`duplicate tool name '${tool.name}'`);
    byName.set(tool.name, { tool, validate: sharedAjv().compile(tool.input_schema) });
  }
  const sortedSpecs: ToolSpec[] = [...opts.tools]
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map((t) => ({ name: t.name, description: t.description, input_schema: t.input_schema }));

  const invalid = (call: ToolUseBlock, ctx: DispatchContext, errors: string[]): DispatchResult => {
    // A model may send any name: what goes to the trace and back to it is bounded.
    const name = shortName(call.name);
    const ev = bus.emit<ToolInputInvalidPayload>({
      session_id: ctx.session_id,
      turn_id: ctx.turn_id,
      parent_event_id: ctx.parent_event_id,
      type: 'tool.input_invalid',
      actor: 'system',
      payload: { tool_name: name, validation_errors: errors },
    });
    const content = `invalid input for tool '${name}': ${errors.join('; ')}`;
    return { result: { type: 'tool_result', tool_use_id: call.id, content, is_error: true }, event_id: ev.id, failed: true };
  };

  return {
    specs: () => sortedSpecs.map((s) => ({ ...s })),

    async dispatch(call, ctx) {
      const entry = byName.get(call.name);
      if (!entry) {
        return invalid(call, ctx, [`unknown tool '${shortName(call.name)}'; available: ${[...byName.keys()].sort().join(', ')}`]);
      }
      if (ctx.allowedTools && !ctx.allowedTools.has(call.name)) {
        return invalid(call, ctx, [`tool '${call.name}' is not allowed in this session; allowed: ${[...ctx.allowedTools].sort().join(', ')}`]);
      }
      const { tool, validate } = entry;
      // Any shape the model (or a faulty adapter) sends is an invalid input for it to fix, never a throw.
      const raw: unknown = call.input;
      if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
        return invalid(call, ctx, [`the input must be a JSON object, got ${raw === null ? 'null' : Array.isArray(raw) ? 'an array' : typeof raw}`]);
      }
      // Validate a copy: ajv fills defaults in place, and the model's input must stay as it was sent.
      let input: Record<string, unknown>;
      try {
        input = structuredClone(raw) as Record<string, unknown>;
      } catch (e) {
        return invalid(call, ctx, [`the input is not plain JSON data (${(e as Error).message})`]);
      }
      if (!validate(input)) return invalid(call, ctx, formatAjvErrors(validate.errors));

      const envelope = { session_id: ctx.session_id, turn_id: ctx.turn_id };
      const called = bus.emit<ToolCalledPayload>({
        ...envelope,
        parent_event_id: ctx.parent_event_id,
        type: 'tool.called',
        actor: ctx.actor ?? 'agent',
        payload: { tool_use_id: call.id, tool_name: tool.name, ...inputDigest(call.input ?? {}), side_effects: tool.side_effects },
      });
      const startUs = clock.nowUs();
      const latency = () => Math.max(0, Math.round((clock.nowUs() - startUs) / 1000));

      try {
        const out = await tool.run(input, {
          workspaceRoot: ctx.workspaceRoot,
          logger,
          call: { tool_use_id: call.id, llm_event_id: ctx.parent_event_id },
          ...(ctx.signal ? { signal: ctx.signal } : {}),
          ...(ctx.delegate ? { delegate: ctx.delegate } : {}),
        });
        const content = scrubWorkspacePaths(out.content, ctx.workspaceRoot);
        const success = out.success ?? true;
        const done = bus.emit<ToolCompletedPayload>({
          ...envelope,
          parent_event_id: called.id,
          type: 'tool.completed',
          actor: 'tool',
          payload: {
            tool_use_id: call.id,
            success,
            output_size_bytes: Buffer.byteLength(content, 'utf8'),
            latency_ms: latency(),
            files_modified: out.files_modified ?? null,
            command_executed: out.command_executed ?? null,
            ...(out.metadata ? { metadata: out.metadata } : {}),
          },
        });
        return { result: { type: 'tool_result', tool_use_id: call.id, content, is_error: false }, event_id: done.id, failed: false };
      } catch (err) {
        let errorClass: ToolErrorClass = 'execution_error';
        let message: string;
        if (err instanceof ToolError) {
          errorClass = err.errorClass;
          message = oneLine(err.message, ctx.workspaceRoot);
        } else {
          // Not a ToolError: a bug or an unexpected fault in the tool; keep the stack in the log.
          message = oneLine(err instanceof Error ? err.message : String(err), ctx.workspaceRoot);
          logger.log('warn', 'tool raised an unexpected error', { tool: tool.name, tool_use_id: call.id, error: err instanceof Error ? err.stack : String(err) });
        }
        const failed = bus.emit<ToolFailedPayload>({
          ...envelope,
          parent_event_id: called.id,
          type: 'tool.failed',
          actor: 'tool',
          payload: { tool_use_id: call.id, error_class: errorClass, error_message: message, latency_ms: latency() },
        });
        const content = `${errorClass}: ${message}`;
        return { result: { type: 'tool_result', tool_use_id: call.id, content, is_error: true }, event_id: failed.id, failed: true, ...(errorClass === 'resource_limit' ? { resourceLimit: message } : {}) };
      }
    },
  };
}
