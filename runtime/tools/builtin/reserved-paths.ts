// Paths the harness keeps for itself (the hidden check's mount): the file tools refuse them.
import { realpathSync } from 'node:fs';
import { displayPath, resolveInWorkspace, workspaceRelative } from '../../sandbox/index.ts';
import { ToolError, type Tool } from '../tool.ts';

/**
 * The reserved entry a workspace-relative path falls under, or undefined: a path is reserved when
 * its first segment starts with an entry (`.bench-check`, `.bench-check/x`, `.bench-check-1f2e/x`).
 */
export function reservedEntryOf(rel: string, reserved: readonly string[]): string | undefined {
  const first = rel.split('/')[0] ?? '';
  return reserved.find((r) => r !== '' && first.startsWith(r));
}

/**
 * Wraps a file tool whose input names a workspace `path` so that a path under a reserved entry
 * fails with `permission_denied` (a tool error the model sees) before the tool runs. The path is
 * resolved as the tool would (symlinks followed), so a link inside the workspace does not get round it.
 */
export function refuseReservedPaths(tool: Tool, reserved: readonly string[]): Tool {
  if (reserved.length === 0) return tool;
  return {
    ...tool,
    async run(input, ctx) {
      if (typeof input.path === 'string') {
        const abs = resolveInWorkspace(ctx.workspaceRoot, input.path);
        const entry = reservedEntryOf(workspaceRelative(realpathSync(ctx.workspaceRoot), abs), reserved);
        if (entry !== undefined) throw new ToolError('permission_denied', `'${displayPath(input.path)}' is reserved for the harness (${entry}); use another path`);
      }
      return tool.run(input, ctx);
    },
  };
}
