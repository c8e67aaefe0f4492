// analyze's bundle loaded with its V8 code cache, cold, as bin/code-cache.cjs loads it (the source read, its
// digest checked against the cache's, the source decoded, compiled from the cache and run) beside the floor: the
// same two files read into one buffer, the source decoded inside its wrapper, the same vm.Script compiled from the
// cache and run, no digest. node:crypto is loaded before the window in both (analyze loads it anyway, for the
// events digest). Fresh processes, alternating; the minor page faults of the window too (~2 us each here, and
// steadier than time on a shared machine).
//
//   npx tsx scripts/perf/code-cache-load.ts [--rounds 21] [--code-cache bin/code-cache.cjs]
//
// Needs a built dist/ (`npm run build`); one `analyze` of a trace DB first leaves the cache a real start uses.
// --code-cache: another checkout's bin/code-cache.cjs, to compare two versions on this dist/.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';

const REPO = new URL('../../', import.meta.url).pathname;
const BUNDLE = join(REPO, 'dist', 'analyze.cjs');

function flag(name: string): string | null {
  const i = process.argv.indexOf(name);
  return i >= 0 ? (process.argv[i + 1] ?? null) : null;
}

/** The child: milliseconds and minor page faults from before the read to after the bundle's top level ran. */
const CHILD = {
  loader: `require('node:crypto');
const loader = require(process.argv[1]);
const f0 = process.resourceUsage().minorPageFault;
const t0 = performance.now();
const s = loader.runWithCodeCache(process.argv[2]);
const ms = performance.now() - t0;
const faults = process.resourceUsage().minorPageFault - f0;
if (s.cache !== 'used') throw new Error('the code cache was ' + s.cache);
console.log(ms, faults);`,
  floor: `require('node:crypto');
const { closeSync, fstatSync, openSync, readSync } = require('node:fs');
const { createRequire } = require('node:module');
const { dirname } = require('node:path');
const vm = require('node:vm');
const file = process.argv[2];
const HEAD = '(function (exports, require, module, __filename, __dirname, __requireWithCodeCache) {';
const f0 = process.resourceUsage().minorPageFault;
const t0 = performance.now();
const fds = [openSync(file, 'r'), openSync(file + '.v8cache', 'r')];
const [size, cacheSize] = fds.map((fd) => fstatSync(fd).size);
const buffer = Buffer.allocUnsafeSlow(Math.max(HEAD.length + size + 3, cacheSize));
buffer.write(HEAD, 0, 'latin1');
readSync(fds[0], buffer, HEAD.length, size, 0);
buffer.write('\\n})', HEAD.length + size, 'latin1');
const source = buffer.toString('latin1', 0, HEAD.length + size + 3);
readSync(fds[1], buffer, 0, cacheSize, 0);
for (const fd of fds) closeSync(fd);
const script = new vm.Script(source, { filename: file, cachedData: buffer.subarray(32, cacheSize) });
const module = { exports: {} };
script.runInThisContext()(module.exports, createRequire(file), module, file, dirname(file), (p) => require(p));
const ms = performance.now() - t0;
const faults = process.resourceUsage().minorPageFault - f0;
if (script.cachedDataRejected) throw new Error('the code cache was rejected');
console.log(ms, faults);`,
};

const median = (xs: number[]) => +[...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!.toFixed(2);

const rounds = Number(flag('--rounds') ?? 21);
const loader = resolve(flag('--code-cache') ?? join(REPO, 'bin', 'code-cache.cjs'));
if (!existsSync(BUNDLE)) {
  process.stdout.write(`${JSON.stringify({ skipped: `no ${BUNDLE} (npm run build)` })}\n`);
  process.exit(0);
}
// Without NODE_EXTRA_CA_CERTS, which would make each child parse a CA bundle when node:crypto loads.
const env = { ...process.env };
delete env.NODE_EXTRA_CA_CERTS;
// No cache yet: one of the bundle's top level only (an analyze leaves a larger one, of every function it ran).
const cacheMadeHere = !existsSync(`${BUNDLE}.v8cache`);
if (cacheMadeHere) spawnSync(process.execPath, ['-e', 'require(process.argv[1]).runWithCodeCache(process.argv[2]).saveCache()', loader, BUNDLE], { env, stdio: 'inherit' });
const load = [loadavg().map((l) => +l.toFixed(2))];
const ms: Record<keyof typeof CHILD, number[]> = { loader: [], floor: [] };
const faults: Record<keyof typeof CHILD, number[]> = { loader: [], floor: [] };
for (let r = 0; r < rounds; r++) {
  for (const mode of Object.keys(CHILD) as (keyof typeof CHILD)[]) {
    // The same arguments to both (the floor ignores the loader's path).
    const out = spawnSync(process.execPath, ['-e', CHILD[mode], loader, BUNDLE], { encoding: 'utf8', env });
    if (out.status !== 0) throw new Error(`${mode} exited ${out.status}: ${out.stderr.slice(0, 500)}`);
    const [took, faulted] = out.stdout.trim().split(' ').map(Number);
    ms[mode].push(took!);
    faults[mode].push(faulted!);
  }
}
load.push(loadavg().map((l) => +l.toFixed(2)));
const loaderMs = median(ms.loader);
const floorMs = median(ms.floor);
const paired = ms.loader.map((x, i) => x - ms.floor[i]!);
process.stdout.write(
  `${JSON.stringify(
    {
      what: 'dist/analyze.cjs loaded with its code cache by bin/code-cache.cjs, against the same two files read into one buffer and the same cache compiled and run with no digest (the floor), fresh processes',
      code_cache: loader,
      cache: cacheMadeHere ? 'made here, of the top level only' : 'as the last analyze left it',
      rounds,
      load_average: load,
      loader_ms: loaderMs,
      floor_ms: floorMs,
      over_floor_ms: median(paired),
      ratio: +(loaderMs / floorMs).toFixed(3),
      loader_minor_faults: median(faults.loader),
      floor_minor_faults: median(faults.floor),
    },
    null,
    2,
  )}\n`,
);
