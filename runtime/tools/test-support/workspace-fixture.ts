import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** A throwaway directory tree: `root` holds `ws/` (the workspace) and `outside/` (a sibling the tools must not reach). */
export interface WorkspaceFixture {
  root: string;
  ws: string;
  outside: string;
  /** Writes a file under the workspace, creating parents. */
  write(rel: string, content: string): string;
  cleanup(): void;
}

/** Creates a fresh fixture under the OS temp dir. */
export function createWorkspaceFixture(files: Record<string, string> = {}): WorkspaceFixture {
  const root = mkdtempSync(join(tmpdir(), 'metis-tools-'));
  const ws = join(root, 'ws');
  const outside = join(root, 'outside');
  mkdirSync(ws);
  mkdirSync(outside);
  const write = (rel: string, content: string) => {
    const p = join(ws, rel);
    mkdirSync(dirname(p), { recursive: true });
    writeFileSync(p, content);
    return p;
  };
  for (const [rel, content] of Object.entries(files)) write(rel, content);
  return { root, ws, outside, write, cleanup: () => rmSync(root, { recursive: true, force: true }) };
}
