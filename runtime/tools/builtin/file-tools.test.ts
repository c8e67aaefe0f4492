import { mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createWorkspaceFixture, type WorkspaceFixture } from '../test-support/workspace-fixture.ts';
import { runTool, toolErrorOf } from '../test-support/run-tool.ts';
import { createEditFileTool, createListFilesTool, createReadFileTool, createWriteFileTool } from './index.ts';

let fx: WorkspaceFixture;
beforeEach(() => {
  fx = createWorkspaceFixture({
    'README.md': '# demo\n',
    'src/main.py': 'def f():\n    return 1\n\n\ndef g():\n    return 1\n',
    'src/lib/util.py': 'X = 1\n',
    'b.txt': 'b\n',
  });
});
afterEach(() => fx.cleanup());

describe('read_file', () => {
  const read = createReadFileTool({ maxBytes: 64 });
  it('returns the file text', async () => {
    expect(await runTool(read, { path: 'src/lib/util.py' }, fx.ws)).toEqual({ content: 'X = 1\n' });
  });
  it('reports a missing file as not_found, naming the workspace path', async () => {
    const e = await toolErrorOf(runTool(read, { path: 'src/./nope.py' }, fx.ws));
    expect(e.errorClass).toBe('not_found');
    expect(e.message).toContain("'src/nope.py'");
    expect(e.message).not.toContain(fx.root);
  });
  it('cuts a large file at the cap with a marker counting the bytes left out', async () => {
    fx.write('big.txt', 'é'.repeat(100)); // 200 bytes; the cut must not split a character
    const { content } = await runTool(read, { path: 'big.txt' }, fx.ws);
    expect(content).toBe(`${'é'.repeat(32)}\n…[truncated 136 bytes]`);
  });
  it('refuses a directory', async () => {
    expect((await toolErrorOf(runTool(read, { path: 'src' }, fx.ws))).errorClass).toBe('execution_error');
  });
});

describe('list_files', () => {
  const list = createListFilesTool();
  it('lists the root sorted, workspace-relative, directories with a trailing slash', async () => {
    expect((await runTool(list, {}, fx.ws)).content).toBe('README.md\nb.txt\nsrc/');
  });
  it('lists recursively with paths relative to the workspace, not the listed directory', async () => {
    expect((await runTool(list, { path: 'src', recursive: true }, fx.ws)).content).toBe('src/lib/\nsrc/lib/util.py\nsrc/main.py');
  });
  it('does not descend into symlinked directories, and says so for an empty directory', async () => {
    symlinkSync('src', join(fx.ws, 'alias'));
    mkdirSync(join(fx.ws, 'empty'));
    const all = (await runTool(list, { recursive: true }, fx.ws)).content.split('\n');
    expect(all).toContain('alias/');
    expect(all.some((l) => l.startsWith('alias/') && l !== 'alias/')).toBe(false);
    expect((await runTool(list, { path: 'empty' }, fx.ws)).content).toBe('(empty directory)');
  });
  it('caps the number of entries with a marker', async () => {
    const few = createListFilesTool({ maxEntries: 2 });
    expect((await runTool(few, { recursive: true }, fx.ws)).content).toBe('README.md\nb.txt\n…[truncated 4 entries]');
  });
  it('reports a missing directory as not_found', async () => {
    expect((await toolErrorOf(runTool(list, { path: 'nope' }, fx.ws))).errorClass).toBe('not_found');
  });
});

describe('write_file', () => {
  const write = createWriteFileTool();
  it('creates parent directories and reports the file it modified', async () => {
    const out = await runTool(write, { path: 'new/deep/file.txt', content: 'héllo' }, fx.ws);
    expect(readFileSync(join(fx.ws, 'new/deep/file.txt'), 'utf8')).toBe('héllo');
    expect(out).toEqual({ content: 'Created new/deep/file.txt (6 bytes)', files_modified: ['new/deep/file.txt'] });
  });
  it('overwrites an existing file', async () => {
    const out = await runTool(write, { path: 'b.txt', content: 'B' }, fx.ws);
    expect(readFileSync(join(fx.ws, 'b.txt'), 'utf8')).toBe('B');
    expect(out.content).toBe('Overwrote b.txt (1 bytes)');
  });
});

describe('edit_file', () => {
  const edit = createEditFileTool();
  it('replaces the one exact occurrence and says what changed', async () => {
    const out = await runTool(edit, { path: 'src/main.py', old_text: 'def g():\n    return 1', new_text: 'def g():\n    # two\n    return 2' }, fx.ws);
    expect(readFileSync(join(fx.ws, 'src/main.py'), 'utf8')).toBe('def f():\n    return 1\n\n\ndef g():\n    # two\n    return 2\n');
    expect(out).toEqual({ content: 'Edited src/main.py: replaced 1 occurrence at line 5 (-2 +3 lines)', files_modified: ['src/main.py'] });
  });
  it('fails with "old_text not found" when there is no match, leaving the file alone', async () => {
    const e = await toolErrorOf(runTool(edit, { path: 'src/main.py', old_text: 'return 3', new_text: 'x' }, fx.ws));
    expect(e.errorClass).toBe('execution_error');
    expect(e.message).toContain('old_text not found');
    expect(readFileSync(join(fx.ws, 'src/main.py'), 'utf8')).toContain('return 1');
  });
  it('fails naming the count when old_text matches more than once', async () => {
    const before = readFileSync(join(fx.ws, 'src/main.py'), 'utf8');
    const e = await toolErrorOf(runTool(edit, { path: 'src/main.py', old_text: 'return 1', new_text: 'return 9' }, fx.ws));
    expect(e.errorClass).toBe('execution_error');
    expect(e.message).toContain('2 times');
    expect(readFileSync(join(fx.ws, 'src/main.py'), 'utf8')).toBe(before);
  });
  it('reports a missing file as not_found', async () => {
    expect((await toolErrorOf(runTool(edit, { path: 'nope.py', old_text: 'a', new_text: 'b' }, fx.ws))).errorClass).toBe('not_found');
  });
});
