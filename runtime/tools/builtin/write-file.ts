import { existsSync, mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { displayPath, resolveInWorkspace, workspaceRelative } from '../../sandbox/index.ts';
import type { Tool } from '../tool.ts';
import { toolErrorFromFs } from './fs-errors.ts';

/** `write_file {path, content}`: creates or replaces a workspace file, creating parent directories. */
export function createWriteFileTool(): Tool {
  return {
    name: 'write_file',
    description: 'Create or overwrite a file in the workspace with the given content. Parent directories are created as needed.',
    side_effects: 'write',
    input_schema: {
      type: 'object',
      additionalProperties: false,
      required: ['path', 'content'],
      properties: {
        path: { type: 'string', minLength: 1, description: 'File path relative to the workspace root.' },
        content: { type: 'string', description: 'The complete new content of the file.' },
      },
    },
    async run(input, ctx) {
      const userPath = input.path as string;
      const content = input.content as string;
      const shown = displayPath(userPath);
      // The real target: a symlink inside the workspace is written through, never out of it.
      const abs = resolveInWorkspace(ctx.workspaceRoot, userPath);
      const rel = workspaceRelative(realpathSync(ctx.workspaceRoot), abs);
      try {
        const existed = existsSync(abs);
        mkdirSync(dirname(abs), { recursive: true });
        writeFileSync(abs, content, 'utf8');
        const bytes = Buffer.byteLength(content, 'utf8');
        return {
          content: `${existed ? 'Overwrote' : 'Created'} ${rel} (${bytes} bytes)`,
          files_modified: [rel],
        };
      } catch (err) {
        throw toolErrorFromFs(err, shown);
      }
    },
  };
}
