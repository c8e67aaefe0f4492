import { readdirSync, realpathSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { displayPath, isWithin, resolveInWorkspace, workspaceRelative } from '../../sandbox/index.ts';
import type { Tool } from '../tool.ts';
import { toolErrorFromFs } from './fs-errors.ts';

/** Default cap on listed entries; a vendored dependency tree must not flood the context. */
export const DEFAULT_LIST_MAX_ENTRIES = 1000;

/** Options for `list_files`. */
export interface ListFilesOptions {
  maxEntries?: number;
}

/** Code-unit order: the same on every machine and locale. */
const byCodeUnit = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Workspace-relative entries under `dirAbs`, directories with a trailing `/`. Symlinks are never
 * descended into (no loops, no escapes); one to a directory inside the workspace is shown as a directory.
 */
function collect(rootReal: string, dirAbs: string, recursive: boolean, out: string[]): void {
  for (const entry of readdirSync(dirAbs, { withFileTypes: true })) {
    const abs = join(dirAbs, entry.name);
    const rel = workspaceRelative(rootReal, abs);
    if (entry.isDirectory()) {
      out.push(`${rel}/`);
      if (recursive) collect(rootReal, abs, recursive, out);
    } else if (entry.isSymbolicLink()) {
      out.push(symlinkPointsToInnerDir(rootReal, abs) ? `${rel}/` : rel);
    } else {
      out.push(rel);
    }
  }
}

function symlinkPointsToInnerDir(rootReal: string, abs: string): boolean {
  try {
    const target = realpathSync(abs);
    return isWithin(rootReal, target) && statSync(target).isDirectory();
  } catch {
    return false; // dangling
  }
}

/** `list_files {path = ".", recursive = false}`: sorted workspace-relative paths, directories ending in `/`. */
export function createListFilesTool(opts: ListFilesOptions = {}): Tool {
  const maxEntries = opts.maxEntries ?? DEFAULT_LIST_MAX_ENTRIES;
  return {
    name: 'list_files',
    description:
      'List files in a workspace directory, one workspace-relative path per line, sorted; directories end with "/". ' +
      'Set recursive to include everything below.',
    side_effects: 'read',
    input_schema: {
      type: 'object',
      additionalProperties: false,
      properties: {
        path: { type: 'string', default: '.', description: 'Directory relative to the workspace root.' },
        recursive: { type: 'boolean', default: false, description: 'Also list the contents of subdirectories.' },
      },
    },
    async run(input, ctx) {
      const userPath = typeof input.path === 'string' && input.path !== '' ? input.path : '.';
      const shown = displayPath(userPath);
      const abs = resolveInWorkspace(ctx.workspaceRoot, userPath);
      const rootReal = realpathSync(ctx.workspaceRoot);
      const entries: string[] = [];
      try {
        if (!statSync(abs).isDirectory()) return { content: workspaceRelative(rootReal, abs) };
        collect(rootReal, abs, input.recursive === true, entries);
      } catch (err) {
        throw toolErrorFromFs(err, shown);
      }
      if (entries.length === 0) return { content: '(empty directory)' };
      entries.sort(byCodeUnit);
      const shownEntries = entries.slice(0, maxEntries);
      const more = entries.length - shownEntries.length;
      return { content: shownEntries.join('\n') + (more > 0 ? `\n…[truncated ${more} entries]` : '') };
    },
  };
}
