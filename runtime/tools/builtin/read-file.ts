import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { completePrefixLength, displayPath, resolveInWorkspace, truncationMarker } from '../../sandbox/index.ts';
import { ToolError, type Tool } from '../tool.ts';
import { toolErrorFromFs } from './fs-errors.ts';

/** Default cap on the bytes of a file returned to the model (~8k tokens). */
export const DEFAULT_READ_MAX_BYTES = 32 * 1024;

/** Options for `read_file`. */
export interface ReadFileOptions {
  maxBytes?: number;
}

/** `read_file {path}`: a workspace file's text, cut at `maxBytes` with a `…[truncated N bytes]` marker. */
export function createReadFileTool(opts: ReadFileOptions = {}): Tool {
  const maxBytes = opts.maxBytes ?? DEFAULT_READ_MAX_BYTES;
  return {
    name: 'read_file',
    description: `Read a text file in the workspace. Files over ${maxBytes} bytes are cut off with a truncation marker.`,
    side_effects: 'read',
    input_schema: {
      type: 'object',
      additionalProperties: false,
      required: ['path'],
      properties: {
        path: { type: 'string', minLength: 1, description: 'File path relative to the workspace root.' },
      },
    },
    async run(input, ctx) {
      const userPath = input.path as string;
      const shown = displayPath(userPath);
      const abs = resolveInWorkspace(ctx.workspaceRoot, userPath);
      let fd: number | undefined;
      try {
        const st = statSync(abs);
        if (st.isDirectory()) throw new ToolError('execution_error', `'${shown}' is a directory; use list_files`);
        if (st.size === 0) return { content: '(empty file)' };
        // Read only what is returned: a huge log file must not be loaded whole.
        const want = Math.min(st.size, maxBytes);
        const buf = Buffer.alloc(want);
        fd = openSync(abs, 'r');
        const got = readSync(fd, buf, 0, want, 0);
        if (st.size <= maxBytes) return { content: buf.subarray(0, got).toString('utf8') };
        const head = buf.subarray(0, completePrefixLength(buf.subarray(0, got)));
        return { content: `${head.toString('utf8')}\n${truncationMarker(st.size - head.length)}` };
      } catch (err) {
        throw toolErrorFromFs(err, shown);
      } finally {
        if (fd !== undefined) closeSync(fd);
      }
    },
  };
}
