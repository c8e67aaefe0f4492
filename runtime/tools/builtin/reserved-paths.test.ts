import { symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createMemoryLogger } from '../../core/logger.ts';
import { ToolError } from '../tool.ts';
import { createWorkspaceFixture, type WorkspaceFixture } from '../test-support/workspace-fixture.ts';
import { createBuiltinTools } from './index.ts';
import { reservedEntryOf } from './reserved-paths.ts';

let fx: WorkspaceFixture;
afterEach(() => fx?.cleanup());

describe('reserved paths', () => {
  it('matches by the first path segment', () => {
    expect(reservedEntryOf('.bench-check', ['.bench-check'])).toBe('.bench-check');
    expect(reservedEntryOf('.bench-check/test_x.py', ['.bench-check'])).toBe('.bench-check');
    expect(reservedEntryOf('.bench-check-1a2b/x', ['.bench-check'])).toBe('.bench-check');
    expect(reservedEntryOf('src/.bench-check', ['.bench-check'])).toBeUndefined();
    expect(reservedEntryOf('notes.md', ['.bench-check', ''])).toBeUndefined();
  });

  it('every file tool refuses the check mount with permission_denied, through a symlink too', async () => {
    fx = createWorkspaceFixture({ 'notes.md': 'a\n' });
    symlinkSync('.bench-check', join(fx.ws, 'innocent'));
    const tools = createBuiltinTools({ reservedPaths: ['.bench-check'] });
    const ctx = { workspaceRoot: fx.ws, logger: createMemoryLogger() };
    const attempts: [string, Record<string, unknown>][] = [
      ['write_file', { path: '.bench-check', content: 'x' }],
      ['write_file', { path: '.bench-check/test_pager.py', content: 'x' }],
      ['write_file', { path: 'innocent/test_pager.py', content: 'x' }],
      ['edit_file', { path: '.bench-check/t.py', old_text: 'a', new_text: 'b' }],
      ['read_file', { path: '.bench-check/t.py' }],
      ['list_files', { path: '.bench-check' }],
    ];
    for (const [name, input] of attempts) {
      const tool = tools.find((t) => t.name === name)!;
      const err = await tool.run(input, ctx).catch((e: unknown) => e);
      expect(err, `${name} ${JSON.stringify(input)}`).toBeInstanceOf(ToolError);
      expect((err as ToolError).errorClass).toBe('permission_denied');
      expect((err as ToolError).message).toContain('reserved for the harness');
    }
    // Other paths work as before.
    await expect(tools.find((t) => t.name === 'write_file')!.run({ path: 'ok.txt', content: 'y' }, ctx)).resolves.toMatchObject({ files_modified: ['ok.txt'] });
  });
});
