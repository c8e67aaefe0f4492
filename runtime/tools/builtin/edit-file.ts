import { readFileSync, realpathSync, statSync, writeFileSync } from 'node:fs';
import { displayPath, resolveInWorkspace, workspaceRelative } from '../../sandbox/index.ts';
import { ToolError, type Tool } from '../tool.ts';
import { toolErrorFromFs } from './fs-errors.ts';

function countOccurrences(haystack: string, needle: string): number {
  let n = 0;
  for (let i = haystack.indexOf(needle); i !== -1; i = haystack.indexOf(needle, i + needle.length)) n++;
  return n;
}

const lineCount = (s: string) => (s === '' ? 0 : s.split('\n').length);

/**
 * `edit_file {path, old_text, new_text}`: replaces the one exact occurrence of `old_text`.
 * Zero or several matches are errors so an edit never lands somewhere the model did not mean.
 */
export function createEditFileTool(): Tool {
  return {
    name: 'edit_file',
    description:
      'Replace an exact piece of text in a workspace file. old_text must occur exactly once in the file ' +
      '(include surrounding lines to make it unique); it is replaced by new_text.',
    side_effects: 'write',
    input_schema: {
      type: 'object',
      additionalProperties: false,
      required: ['path', 'old_text', 'new_text'],
      properties: {
        path: { type: 'string', minLength: 1, description: 'File path relative to the workspace root.' },
        old_text: { type: 'string', minLength: 1, description: 'Exact text to find, including whitespace.' },
        new_text: { type: 'string', description: 'Replacement text (may be empty to delete).' },
      },
    },
    async run(input, ctx) {
      const userPath = input.path as string;
      const oldText = input.old_text as string;
      const newText = input.new_text as string;
      const shown = displayPath(userPath);
      const abs = resolveInWorkspace(ctx.workspaceRoot, userPath);
      const rel = workspaceRelative(realpathSync(ctx.workspaceRoot), abs);
      let text: string;
      try {
        if (statSync(abs).isDirectory()) throw new ToolError('execution_error', `'${shown}' is a directory`);
        text = readFileSync(abs, 'utf8');
      } catch (err) {
        throw toolErrorFromFs(err, shown);
      }
      const matches = countOccurrences(text, oldText);
      if (matches === 0) throw new ToolError('execution_error', `old_text not found in ${rel}`);
      if (matches > 1) {
        throw new ToolError('execution_error', `old_text matches ${matches} times in ${rel}; include more context so it matches exactly once`);
      }
      const at = text.indexOf(oldText);
      const line = text.slice(0, at).split('\n').length;
      try {
        writeFileSync(abs, text.slice(0, at) + newText + text.slice(at + oldText.length), 'utf8');
      } catch (err) {
        throw toolErrorFromFs(err, shown);
      }
      const change = oldText === newText ? 'no change' : `-${lineCount(oldText)} +${lineCount(newText)} lines`;
      return {
        content: `Edited ${rel}: replaced 1 occurrence at line ${line} (${change})`,
        files_modified: oldText === newText ? [] : [rel],
      };
    },
  };
}
