import type { ToolFailedPayload } from '../../schemas/types/events.ts';
import type { Logger } from '../core/logger.ts';

/** Side effect a tool declares (spec §7, catalog tool.called). */
export type SideEffect = 'none' | 'read' | 'write' | 'execute' | 'network';

/** Tool failure classes: the catalog's tool.failed enum (schemas/events/tool.failed.json). */
export type ToolErrorClass = ToolFailedPayload['error_class'];

/** A tool failure the dispatcher reports to the model as an error tool_result. */
export class ToolError extends Error {
  constructor(
    readonly errorClass: ToolErrorClass,
    message: string,
  ) {
    super(message);
    this.name = 'ToolError';
  }
}

/** Where and how a tool runs: the workspace copy is the only place it may touch. */
export interface ToolContext {
  workspaceRoot: string;
  logger: Logger;
  signal?: AbortSignal;
  /** The tool_use being served and the llm.call_completed that asked for it. */
  call?: { tool_use_id: string; llm_event_id: string };
  /** Runs a worker session for the `delegate` tool; absent where delegation is not allowed (inside workers). */
  delegate?: (request: DelegateRequest) => Promise<DelegateOutcome>;
}

/** Delegate tiers (routing slot 5 resolves them to models). */
export type DelegateTier = 'fast' | 'balanced' | 'deep';

/** A planner's request for a worker session (catalog §6.8). */
export interface DelegateRequest {
  task: string;
  tier: DelegateTier;
  context_mode: 'minimal' | 'explicit';
  /** For `explicit`: the references (paths, notes) handed to the worker with the task. */
  context: string[];
  /** Tools the worker may use; empty means all but `delegate`. */
  allowed_tools: string[];
  tool_use_id: string;
  /** The planner's llm.call_completed: parent of delegate.started. */
  llm_event_id: string;
}

/** What came back from a worker. */
export interface DelegateOutcome {
  ok: boolean;
  /** The worker's final answer, or why it failed. */
  output: string;
}

/** What a tool returns on success. */
export interface ToolOutput {
  content: string;
  /** Workspace-relative paths written, for write tools. */
  files_modified?: string[];
  /** The command line, for execute tools. */
  command_executed?: string;
  /** False when the tool ran but its action did not succeed (a shell command exiting non-zero); default true. */
  success?: boolean;
  /** Tool-specific facts about the result, recorded on tool.completed (e.g. skill_load's `already_preloaded`). */
  metadata?: Record<string, string | number | boolean | null>;
}

/** A built-in tool: a name, a JSON Schema for its input (checked by ajv before `run`), and its effect. */
export interface Tool {
  name: string;
  description: string;
  side_effects: SideEffect;
  input_schema: Record<string, unknown>;
  run(input: Record<string, unknown>, ctx: ToolContext): Promise<ToolOutput>;
}
