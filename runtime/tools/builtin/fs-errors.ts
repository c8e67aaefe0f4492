import { ToolError } from '../tool.ts';

/**
 * Maps a Node filesystem error to a ToolError whose message names the workspace-relative path
 * only: Node's own messages carry the absolute temp path, which must never reach the model.
 */
export function toolErrorFromFs(err: unknown, shown: string): ToolError {
  if (err instanceof ToolError) return err;
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case 'ENOENT':
      return new ToolError('not_found', `no such file or directory: '${shown}'`);
    case 'ENOTDIR':
      return new ToolError('not_found', `a parent of '${shown}' is not a directory`);
    case 'EISDIR':
      return new ToolError('execution_error', `'${shown}' is a directory`);
    case 'EACCES':
    case 'EPERM':
    case 'EROFS':
      return new ToolError('permission_denied', `permission denied: '${shown}'`);
    case 'ELOOP':
      return new ToolError('execution_error', `too many levels of symbolic links: '${shown}'`);
    default:
      return new ToolError('execution_error', `${code ?? 'error'} on '${shown}'`);
  }
}
