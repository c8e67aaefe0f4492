import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { CODE_CACHE_SUFFIX } from '../../bin/code-cache.cjs';
import { REPO_ROOT, tempDir } from '../support/cli.ts';

const run = promisify(execFile);

/**
 * A folder with a one-function CommonJS bundle that returns `said`, and a script that runs it the way
 * bin/launch.cjs does (each run its own process: a fresh V8, as a real start).
 */
function bundleDir(said: string): { dir: string; bundle: string; start(): Promise<{ said: string; cache: string }> } {
  const dir = tempDir('bench-code-cache-');
  const bundle = join(dir, 'b.cjs');
  writeFileSync(bundle, `exports.main = async () => ${JSON.stringify(said)};\n`);
  const probe = join(dir, 'probe.mjs');
  writeFileSync(
    probe,
    `import { runWithCodeCache } from ${JSON.stringify(pathToFileURL(join(REPO_ROOT, 'bin', 'code-cache.cjs')).href)};\n` +
      'const s = runWithCodeCache(process.argv[2]);\nconst said = await s.exports.main();\ns.saveCache();\nconsole.log(JSON.stringify({ said, cache: s.cache }));\n',
  );
  return { dir, bundle, start: async () => JSON.parse((await run(process.execPath, [probe, bundle])).stdout) as { said: string; cache: string } };
}

describe('bin/code-cache.cjs', () => {
  it('writes the cache on the first start and uses it on the next', async () => {
    const b = bundleDir('one');
    expect(await b.start()).toEqual({ said: 'one', cache: 'none' });
    expect(existsSync(b.bundle + CODE_CACHE_SUFFIX)).toBe(true);
    expect(await b.start()).toEqual({ said: 'one', cache: 'used' });
  });

  it('gives the files a bundle loads through __requireWithCodeCache a cache of their own', async () => {
    const b = bundleDir('one');
    const part = join(b.dir, 'part.cjs');
    writeFileSync(part, 'exports.said = () => "part";\n');
    writeFileSync(b.bundle, `exports.main = async () => __requireWithCodeCache(${JSON.stringify(part)}).said();\n`);
    expect(await b.start()).toEqual({ said: 'part', cache: 'none' });
    expect(existsSync(part + CODE_CACHE_SUFFIX)).toBe(true);
    expect(await b.start()).toEqual({ said: 'part', cache: 'used' });
    // Its own digest guards it as the bundle's guards the bundle.
    writeFileSync(part, 'exports.said = () => "PART";\n');
    expect(await b.start()).toEqual({ said: 'PART', cache: 'used' });
  });

  it('never runs the old code after an edit of the same length (V8 checks only the length)', async () => {
    const b = bundleDir('one');
    await b.start();
    writeFileSync(b.bundle, `exports.main = async () => ${JSON.stringify('two')};\n`);
    expect(await b.start()).toEqual({ said: 'two', cache: 'none' });
    // The edited bundle's own cache replaces the old one.
    expect(await b.start()).toEqual({ said: 'two', cache: 'used' });
  });

  it('runs a bundle as written whether its text is ASCII or not, with and without its cache', async () => {
    // A bundle is read as bytes and decoded as Latin-1 when all ASCII: any other byte must still decode as UTF-8.
    for (const said of ['plain ascii', 'é – ✓ 𝄞']) {
      const b = bundleDir(said);
      expect(await b.start()).toEqual({ said, cache: 'none' });
      expect(await b.start()).toEqual({ said, cache: 'used' });
    }
  });

  it('loads no node:module (its createRequire comes from the loader class, without the ES module loader it brings)', async () => {
    const b = bundleDir('one');
    // A CommonJS probe: an ES module one would set up the ES module loader itself.
    const probe = join(b.dir, 'probe-builtins.cjs');
    writeFileSync(
      probe,
      `const s = require(${JSON.stringify(join(REPO_ROOT, 'bin', 'code-cache.cjs'))}).runWithCodeCache(process.argv[2]);\n` +
        "s.exports.main().then((said) => console.log(JSON.stringify({ said, module: process.moduleLoadList.includes('NativeModule module') })));\n",
    );
    expect(JSON.parse((await run(process.execPath, [probe, b.bundle])).stdout)).toEqual({ said: 'one', module: false });
  });

  it('runs from the source when the cache is damaged or cannot be written', async () => {
    const b = bundleDir('one');
    await b.start();
    const cache = b.bundle + CODE_CACHE_SUFFIX;
    writeFileSync(cache, 'not a code cache');
    expect(await b.start()).toEqual({ said: 'one', cache: 'none' });
    // The right digest with damaged data after it: V8 refuses it and the next start writes a good one.
    const good = readFileSync(cache);
    writeFileSync(cache, Buffer.concat([good.subarray(0, 32), Buffer.from('damaged')]));
    expect(await b.start()).toEqual({ said: 'one', cache: 'rejected' });
    expect(await b.start()).toEqual({ said: 'one', cache: 'used' });
    // A cache that cannot be written (here a folder stands in its place; a read-only install is another case):
    // no cache, no error, no stray file.
    const ro = bundleDir('two');
    mkdirSync(ro.bundle + CODE_CACHE_SUFFIX);
    expect(await ro.start()).toEqual({ said: 'two', cache: 'none' });
    expect(readdirSync(ro.dir).sort()).toEqual(['b.cjs', `b.cjs${CODE_CACHE_SUFFIX}`, 'probe.mjs']);
  });
});
