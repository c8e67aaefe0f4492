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
}

/** A built-in tool: a name, a JSON Schema for its input (checked by ajv before `run`), and its effect. */
export interface Tool {
  name: string;
  description: string;
  side_effects: SideEffect;
  input_schema: Record<string, unknown>;
  run(input: Record<string, unknown>, ctx: ToolContext): Promise<ToolOutput>;
}
