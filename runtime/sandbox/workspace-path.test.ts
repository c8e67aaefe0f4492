import { mkdirSync, realpathSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ToolError } from '../tools/tool.ts';
import { createWorkspaceFixture, type WorkspaceFixture } from '../tools/test-support/workspace-fixture.ts';
import { resolveInWorkspace, scrubWorkspacePaths } from './workspace-path.ts';

let fx: WorkspaceFixture;
beforeEach(() => {
  fx = createWorkspaceFixture({ 'a.txt': 'a', 'src/b.txt': 'b' });
});
afterEach(() => fx.cleanup());

/** The ToolError thrown by `fn`, failing the test when nothing is thrown. */
function errorOf(fn: () => unknown): ToolError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ToolError) return err;
    throw err;
  }
  throw new Error('expected a ToolError');
}

describe('resolveInWorkspace', () => {
  it('resolves relative paths, existing or not, to real paths inside the root', () => {
    const real = realpathSync(fx.ws);
    expect(resolveInWorkspace(fx.ws, 'a.txt')).toBe(join(real, 'a.txt'));
    expect(resolveInWorkspace(fx.ws, './src/../src/b.txt')).toBe(join(real, 'src/b.txt'));
    expect(resolveInWorkspace(fx.ws, 'new/dir/c.txt')).toBe(join(real, 'new/dir/c.txt'));
    expect(resolveInWorkspace(fx.ws, '.')).toBe(real);
  });

  it.each(['../outside/x', 'src/../../outside', '..', 'a/../../ws2'])('refuses %s, which normalizes outside the root', (p) => {
    const e = errorOf(() => resolveInWorkspace(fx.ws, p));
    expect(e.errorClass).toBe('permission_denied');
    expect(e.message).toContain(p);
    expect(e.message).not.toContain(fx.root);
  });

  it('refuses absolute paths, even ones inside the workspace, without echoing the root', () => {
    expect(errorOf(() => resolveInWorkspace(fx.ws, '/etc/passwd')).errorClass).toBe('permission_denied');
    const e = errorOf(() => resolveInWorkspace(fx.ws, join(fx.ws, 'src/b.txt')));
    expect(e.errorClass).toBe('permission_denied');
    expect(e.message).toContain("use 'src/b.txt'");
    expect(e.message).not.toContain(fx.root);
  });

  it('refuses symlinks that lead out: to a file, to a directory, and dangling ones', () => {
    symlinkSync(join(fx.outside, 'secret.txt'), join(fx.ws, 'dangling'));
    symlinkSync(fx.outside, join(fx.ws, 'outdir'));
    symlinkSync('/etc/hostname', join(fx.ws, 'outfile'));
    for (const p of ['dangling', 'outdir', 'outdir/new.txt', 'outdir/deeper/new.txt', 'outfile']) {
      const e = errorOf(() => resolveInWorkspace(fx.ws, p));
      expect(e.errorClass, p).toBe('permission_denied');
      expect(e.message).toContain('symlink');
      expect(e.message).not.toContain(fx.root);
    }
  });

  it('follows symlinks that stay inside the workspace', () => {
    symlinkSync('src/b.txt', join(fx.ws, 'link-b'));
    mkdirSync(join(fx.ws, 'deep/er'), { recursive: true });
    symlinkSync('../../src', join(fx.ws, 'deep/er/up'));
    const real = realpathSync(fx.ws);
    expect(resolveInWorkspace(fx.ws, 'link-b')).toBe(join(real, 'src/b.txt'));
    expect(resolveInWorkspace(fx.ws, 'deep/er/up/new.txt')).toBe(join(real, 'src/new.txt'));
  });

  it('works when the root itself is reached through a symlink', () => {
    symlinkSync(fx.ws, join(fx.root, 'ws-link'));
    expect(resolveInWorkspace(join(fx.root, 'ws-link'), 'a.txt')).toBe(join(realpathSync(fx.ws), 'a.txt'));
  });
});

describe('scrubWorkspacePaths', () => {
  it('makes absolute workspace paths relative and leaves look-alike paths alone', () => {
    const text = `${fx.ws}/src/b.txt:3: error\ncwd ${fx.ws}\nother ${fx.ws}2/x`;
    expect(scrubWorkspacePaths(text, fx.ws)).toBe(`./src/b.txt:3: error\ncwd .\nother ${fx.ws}2/x`);
  });
});
