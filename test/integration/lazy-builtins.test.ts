// The build's lazy builtins (scripts/lazy-builtins.mjs): a bundle that requires or imports child_process loads it
// when it first uses it, and then works as with the builtin itself.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { lazyBuiltins } from '../../scripts/lazy-builtins.mjs';
import { tempDir } from '../support/cli.ts';

const LOADED = "process.moduleLoadList.includes('NativeModule child_process')";

/** Bundles `source` (CommonJS out, as dist/analyze.cjs) with or without the plugin; runs it and returns what it printed. */
async function bundleAndRun(source: string, lazy: boolean): Promise<string> {
  const dir = tempDir('bench-lazy-builtins-');
  writeFileSync(join(dir, 'entry.mjs'), source);
  const out = join(dir, 'out.cjs');
  await build({ entryPoints: [join(dir, 'entry.mjs')], outfile: out, bundle: true, platform: 'node', format: 'cjs', target: 'node20', logLevel: 'error', plugins: lazy ? [lazyBuiltins(['child_process'])] : [] });
  return execFileSync(process.execPath, [out], { encoding: 'utf8' });
}

describe('lazyBuiltins', () => {
  const uses = [
    ["const cp = require('node:child_process');", 'cp.execFileSync'],
    ["const cp = require('child_process');", 'cp.execFileSync'],
    ["import { execFileSync } from 'node:child_process';", 'execFileSync'],
    ["import * as cp from 'node:child_process';", 'cp.execFileSync'],
  ] as const;

  it('loads the builtin at its first use, whichever way the code asks for it', async () => {
    for (const [ask, call] of uses) {
      const source = `${ask}\nconsole.log(${LOADED});\nconsole.log(${call}(process.execPath, ['-e', 'process.stdout.write("child ran")'], { encoding: 'utf8' }));\nconsole.log(${LOADED});\n`;
      expect(await bundleAndRun(source, true), ask).toBe('false\nchild ran\ntrue\n');
      // Without the plugin the bundle loads it with itself.
      expect(await bundleAndRun(source, false), ask).toBe('true\nchild ran\ntrue\n');
    }
  });
});
