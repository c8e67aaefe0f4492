import type { Tool } from '../tool.ts';
import { createEditFileTool } from './edit-file.ts';
import { createListFilesTool, type ListFilesOptions } from './list-files.ts';
import { createReadFileTool, type ReadFileOptions } from './read-file.ts';
import { createRunShellTool, type RunShellOptions } from './run-shell.ts';
import { createWriteFileTool } from './write-file.ts';
import { refuseReservedPaths, reservedEntryOf } from './reserved-paths.ts';
import { createDelegateTool } from './delegate.ts';
import { alreadyLoadedPointer, createSkillLoadTool, preloadedPointer, SKILL_TOOL_SIDE_EFFECTS, type SkillLoadOptions } from './skill-load.ts';
import { createSkillSearchTool, type SkillSearchOptions } from './skill-search.ts';

export { refuseReservedPaths, reservedEntryOf };
export { createDelegateTool, createEditFileTool, createListFilesTool, createReadFileTool, createRunShellTool, createWriteFileTool };
export type { ListFilesOptions, ReadFileOptions, RunShellOptions };
// Skill tools are per session (they hold its activation budget); the context assembler offers them when the workspace has skills.
export { createSkillLoadTool, createSkillSearchTool, preloadedPointer, alreadyLoadedPointer, SKILL_TOOL_SIDE_EFFECTS };
export type { SkillLoadOptions, SkillSearchOptions };
export { DEFAULT_READ_MAX_BYTES } from './read-file.ts';
export { DEFAULT_LIST_MAX_ENTRIES } from './list-files.ts';
export { RUN_SHELL_DEFAULT_TIMEOUT_S, RUN_SHELL_MAX_TIMEOUT_S } from './run-shell.ts';

/** Options for the whole built-in set. */
export interface BuiltinToolsOptions {
  readFile?: ReadFileOptions;
  listFiles?: ListFilesOptions;
  runShell?: RunShellOptions;
  /** Offer `delegate` (worker sessions); default true. */
  delegate?: boolean;
  /** Top-level names the file tools refuse with permission_denied (the harness's hidden-check mount, e.g. `.bench-check`). */
  reservedPaths?: readonly string[];
}

/** The file and shell tools of spec §7, plus `delegate`; skill tools live with the context assembler. */
export function createBuiltinTools(opts: BuiltinToolsOptions = {}): Tool[] {
  const reserved = opts.reservedPaths ?? [];
  const files = [createReadFileTool(opts.readFile), createListFilesTool(opts.listFiles), createWriteFileTool(), createEditFileTool()].map((t) => refuseReservedPaths(t, reserved));
  return [
    ...files,
    createRunShellTool(opts.runShell),
    ...(opts.delegate === false ? [] : [createDelegateTool()]),
  ];
}

/** Alias of `createBuiltinTools`, kept for callers written against the earlier name. */
export const builtinTools = createBuiltinTools;
