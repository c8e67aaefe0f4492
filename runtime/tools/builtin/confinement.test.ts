import { existsSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createWorkspaceFixture, type WorkspaceFixture } from '../test-support/workspace-fixture.ts';
import { runTool, toolErrorOf } from '../test-support/run-tool.ts';
import { createEditFileTool, createListFilesTool, createReadFileTool, createWriteFileTool } from './index.ts';

let fx: WorkspaceFixture;
beforeEach(() => {
  fx = createWorkspaceFixture({ 'inside.txt': 'inner text\n', 'dir/f.txt': 'f\n' });
  fx.write('../outside/secret.txt', 'outer secret\n');
  symlinkSync(join(fx.outside, 'secret.txt'), join(fx.ws, 'link-out'));
  symlinkSync(fx.outside, join(fx.ws, 'dir-out'));
  symlinkSync('inside.txt', join(fx.ws, 'link-in'));
});
afterEach(() => fx.cleanup());

const read = createReadFileTool();
const write = createWriteFileTool();
const edit = createEditFileTool();
const list = createListFilesTool();

/** One call per tool for a given path; each must be refused. */
const callsFor = (path: string) =>
  [
    ['read_file', () => runTool(read, { path }, fx.ws)],
    ['write_file', () => runTool(write, { path, content: 'pwned\n' }, fx.ws)],
    ['edit_file', () => runTool(edit, { path, old_text: 'outer', new_text: 'pwned' }, fx.ws)],
    ['list_files', () => runTool(list, { path }, fx.ws)],
  ] as const;

describe('file tools stay inside the workspace', () => {
  const escapes = {
    'a .. path': '../outside/secret.txt',
    'an absolute path': '/etc/hostname',
    'the absolute path of a file outside': 'ABS_OUTSIDE',
    'a symlink to a file outside': 'link-out',
    'a path through a symlinked directory outside': 'dir-out/secret.txt',
  };
  for (const [what, raw] of Object.entries(escapes)) {
    it(`refuses ${what} with permission_denied for read, write, edit and list`, async () => {
      const path = raw === 'ABS_OUTSIDE' ? join(fx.outside, 'secret.txt') : raw;
      for (const [name, call] of callsFor(path)) {
        const e = await toolErrorOf(call());
        expect(e.errorClass, name).toBe('permission_denied');
        expect(e.message, name).not.toContain(fx.ws);
      }
      expect(readFileSync(join(fx.outside, 'secret.txt'), 'utf8')).toBe('outer secret\n');
    });
  }

  it('does not create a new file through a symlinked directory that leads out', async () => {
    const e = await toolErrorOf(runTool(write, { path: 'dir-out/new.txt', content: 'x' }, fx.ws));
    expect(e.errorClass).toBe('permission_denied');
    expect(existsSync(join(fx.outside, 'new.txt'))).toBe(false);
  });

  it('follows a symlink that points to a file inside the workspace', async () => {
    expect((await runTool(read, { path: 'link-in' }, fx.ws)).content).toBe('inner text\n');
    const edited = await runTool(edit, { path: 'link-in', old_text: 'inner', new_text: 'edited' }, fx.ws);
    expect(edited.files_modified).toEqual(['inside.txt']);
    await runTool(write, { path: 'link-in', content: 'rewritten\n' }, fx.ws);
    expect(readFileSync(join(fx.ws, 'inside.txt'), 'utf8')).toBe('rewritten\n');
  });
});
