// The bundle's way to better-sqlite3's binary (scripts/sqlite-binary-call.mjs) against bindings' own search, on a
// package folder of its own: the same file, in the same order of places, and bindings itself when nothing is found.
import { createRequire } from 'node:module';
import * as fs from 'node:fs';
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sqliteBinaryCall } from '../../scripts/sqlite-binary-call.mjs';
import { REPO_ROOT, tempDir } from '../support/cli.ts';

const BINARY = 'better_sqlite3.node';
const ROOT_EXPRESSION = "require('node:path').dirname(require.resolve('better-sqlite3/package.json'))";

interface Loaded {
  file?: string;
  path?: string;
  viaBindings?: unknown;
}

/** A package folder that resolves the real bindings package, and bindings' own choice of binary in it (null: none). */
function packageFolder(): { root: string; bindingsChoice(): string | null } {
  const root = join(tempDir('bench-sqlite-binary-'), 'better-sqlite3');
  mkdirSync(join(root, 'node_modules'), { recursive: true });
  writeFileSync(join(root, 'package.json'), '{ "name": "better-sqlite3" }\n');
  symlinkSync(join(REPO_ROOT, 'node_modules', 'bindings'), join(root, 'node_modules', 'bindings'));
  const bindings = createRequire(join(root, 'package.json'))('bindings') as (o: object) => string;
  return {
    root,
    bindingsChoice() {
      try {
        return bindings({ bindings: BINARY, module_root: root, path: true });
      } catch {
        return null;
      }
    },
  };
}

/** Runs the expression with a `require` that records what it loads instead of loading a binary. */
function run(code: string, root: string): Loaded {
  const fake = (id: string): unknown => {
    if (id === 'node:path') return path;
    if (id === 'node:fs') return fs;
    if (id === 'bindings-package') return (opts: unknown) => ({ viaBindings: opts });
    if (id.endsWith('.node')) return { file: id };
    throw new Error(`unexpected require('${id}')`);
  };
  fake.resolve = (id: string, opts?: { paths: string[] }) => {
    if (id === 'better-sqlite3/package.json') return join(root, 'package.json');
    if (id === 'bindings' && opts?.paths[0] === root) return 'bindings-package';
    throw new Error(`unexpected require.resolve('${id}')`);
  };
  return new Function('require', `return ${code};`)(fake) as Loaded;
}

const put = (root: string, ...place: string[]) => {
  mkdirSync(join(root, ...place.slice(0, -1)), { recursive: true });
  writeFileSync(join(root, ...place), '');
};

describe('sqliteBinaryCall', () => {
  it('loads the binary bindings would load, without bindings, while one of its places up to the build-time one holds it', () => {
    const { root, bindingsChoice } = packageFolder();
    put(root, 'build', 'Release', BINARY);
    const code = sqliteBinaryCall(root, BINARY, ROOT_EXPRESSION);
    const release = join(root, 'build', 'Release', BINARY);
    expect(bindingsChoice()).toBe(release);
    expect(run(code, root)).toEqual({ file: release, path: release });
    // A Debug build made later comes first in bindings' order, and so here.
    put(root, 'build', 'Debug', BINARY);
    expect(bindingsChoice()).toBe(join(root, 'build', 'Debug', BINARY));
    expect(run(code, root)).toEqual({ file: bindingsChoice(), path: bindingsChoice() });
    // Gone from every place the build kept: bindings searches, and reports, as before.
    rmSync(join(root, 'build'), { recursive: true });
    expect(run(code, root)).toEqual({ viaBindings: { bindings: BINARY, module_root: root } });
  });

  it('is the plain bindings call when the build finds no binary', () => {
    const { root } = packageFolder();
    const code = sqliteBinaryCall(root, BINARY, ROOT_EXPRESSION);
    expect(code).not.toContain('existsSync');
    put(root, 'build', 'Release', BINARY);
    expect(run(code, root)).toEqual({ viaBindings: { bindings: BINARY, module_root: root } });
  });
});
