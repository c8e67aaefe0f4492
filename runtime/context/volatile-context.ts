import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Workspace files the agent may change mid-session; they go after the cache breakpoint (context-assembler.md §5). */
export const VOLATILE_FILES: readonly string[] = Object.freeze(['.metis/NOTES.md', 'USER.md', 'MEMORY.md']);

/**
 * The volatile system segment: each present file under a `## <path>` heading, re-read on every call
 * so an edit shows on the next turn; null when none exists.
 */
export function readVolatileContext(workspaceRoot: string, files: readonly string[] = VOLATILE_FILES): string | null {
  const parts = files
    .filter((f) => statSync(join(workspaceRoot, f), { throwIfNoEntry: false })?.isFile())
    .map((f) => `## ${f}\n\n${readFileSync(join(workspaceRoot, f), 'utf8').trim()}`);
  return parts.length ? parts.join('\n\n') : null;
}
