import { createMemoryLogger } from '../../core/logger.ts';
import { ToolError, type Tool, type ToolErrorClass, type ToolOutput } from '../tool.ts';

/** Runs a tool directly (no dispatcher, no schema defaults) in `workspaceRoot`. */
export function runTool(tool: Tool, input: Record<string, unknown>, workspaceRoot: string): Promise<ToolOutput> {
  return tool.run(input, { workspaceRoot, logger: createMemoryLogger() });
}

/** The ToolError a tool call rejects with; throws if it resolved or threw something else. */
export async function toolErrorOf(p: Promise<unknown>): Promise<ToolError & { errorClass: ToolErrorClass }> {
  try {
    await p;
  } catch (err) {
    if (err instanceof ToolError) return err;
    throw err;
  }
  throw new Error('expected the tool call to fail with a ToolError');
}
