// Starts the CLI from dist/ (compiled JavaScript, built by `npm install` through the `prepare` script)
// when dist/ was built from the sources as they are now, else from the TypeScript sources through tsx:
// a compiled start skips compiling some 400 files on every call, and an edited checkout never runs
// stale code. METIS_BENCH_NO_DIST=1 always takes the sources.
// CommonJS, as is code-cache.cjs: bin/analyze.cjs starts without Node's ES module loader (the loader, a facade
// per builtin imported, a module job per file: about 4 ms of `analyze --help`); bin/bench.mjs imports it as ESM.
'use strict';
const { existsSync, readFileSync, statSync } = require('node:fs');
const { fileURLToPath, pathToFileURL } = require('node:url');

/** The folder the CLI may keep derived indexes in (harness/cli/list/list-index.ts reads it). */
const CACHE_DIR_ENV = 'METIS_BENCH_CACHE_DIR';

/** Name of the file in dist/ that records which source files (size, mtime) the build read. */
const STAMP_FILE = 'stamp.json';

/**
 * Suffix of the file beside a one-command bundle in dist/ (`analyze.cjs.stamp.json`) that lists that bundle's
 * inputs alone, as [path, size, mtimeMs]: read on every start of the command, a quarter of stamp.json's bytes.
 */
const BUNDLE_STAMP_SUFFIX = '.stamp.json';

/**
 * True when `distDir` holds a finished build whose every input still has the size and mtime the build
 * saw; given `bundle` (a one-command bundle such as `analyze.cjs`), the inputs of that file only, from its own
 * stamp. A missing or unreadable stamp, a missing input or any change means stale.
 * @param {URL} distDir the dist/ folder (a file: URL ending in '/')
 * @param {URL} rootDir the checkout the stamp's paths are relative to (a file: URL ending in '/')
 * @param {string | null} bundle
 * @returns {boolean}
 */
function distIsFresh(distDir, rootDir, bundle = null) {
  let stamp;
  try {
    stamp = JSON.parse(readFileSync(new URL(bundle === null ? STAMP_FILE : bundle + BUNDLE_STAMP_SUFFIX, distDir), 'utf8'));
  } catch {
    return false;
  }
  const root = fileURLToPath(rootDir);
  if (bundle !== null) return Array.isArray(stamp) && stamp.every((input) => Array.isArray(input) && unchanged(root, input[0], input[1], input[2]));
  const inputs = stamp?.inputs;
  if (!inputs || typeof inputs !== 'object') return false;
  for (const path of Object.keys(inputs)) {
    const seen = inputs[path];
    if (!Array.isArray(seen) || !unchanged(root, path, seen[0], seen[1])) return false;
  }
  return true;
}

/**
 * True when the file at `path` (relative to `root`, which ends in a separator) has this size and mtime. Plain path
 * strings and no exception for a missing file: this runs on every start, for some 250 to 500 files.
 */
function unchanged(root, path, size, mtimeMs) {
  if (typeof path !== 'string') return false;
  const now = statSync(root + path, { throwIfNoEntry: false });
  return now !== undefined && now.size === size && now.mtimeMs === mtimeMs;
}

/**
 * The CLI's `main`, from dist/ when it is fresh, else from harness/cli/main.ts through tsx. A process that
 * runs one `command` only (bin/analyze.cjs) takes that command's CommonJS bundle, dist/COMMAND.cjs, when the
 * build made one: one file compiled with V8's code cache instead of some forty ES modules compiled afresh.
 * @param {Record<string, string | undefined>} env
 * @param {string | null} command
 * @returns {Promise<{ main(argv: string[]): Promise<number> }>}
 */
async function loadMain(env = process.env, command = null) {
  const root = pathToFileURL(`${__dirname}/../`);
  const dist = new URL('dist/', root);
  // Derived indexes (bench list's) are kept in dist/ and only while it is fresh: made and read by the same
  // code, and deleted by a rebuild. Always set or cleared here, so a bench started by another bench never
  // inherits its parent's.
  delete env[CACHE_DIR_ENV];
  if (env.METIS_BENCH_NO_DIST !== '1') {
    // Loaded here only: `bench` needs neither it nor the crypto and vm modules it loads.
    const codeCache = command === null ? null : require('./code-cache.cjs');
    const bundle = `${command}.cjs`;
    // A command's bundle needs only its own inputs unchanged (about half of them for analyze).
    if (codeCache !== null && codeCache.canRunWithCodeCache() && distIsFresh(dist, root, bundle) && existsSync(new URL(bundle, dist))) {
      env[CACHE_DIR_ENV] = fileURLToPath(dist);
      return withCodeCache(codeCache.runWithCodeCache(fileURLToPath(new URL(bundle, dist))));
    }
    if (distIsFresh(dist, root)) {
      env[CACHE_DIR_ENV] = fileURLToPath(dist);
      return import(new URL('main.js', dist).href);
    }
  }
  const { register } = await import('tsx/esm/api');
  register();
  return import(new URL('harness/cli/main.ts', root).href);
}

/**
 * The `main` of a CommonJS bundle run with its code cache (bin/code-cache.cjs), which writes the cache after
 * the first run that did the command's work, when the functions it needed are compiled: a run that printed
 * help or stopped on a setup error (exit 2) compiled little, and would leave the next starts a cache of little.
 * @param {{ exports: any, saveCache(): void }} script
 * @returns {{ main(argv: string[]): Promise<number> }}
 */
function withCodeCache(script) {
  return {
    async main(argv) {
      const code = await script.exports.main(argv);
      if (code !== 2 && !argv.includes('--help') && !argv.includes('-h')) script.saveCache();
      return code;
    },
  };
}

/** What may still be open when a command is done without keeping the process busy: the standard streams. */
const QUIET_RESOURCES = new Set(['PipeWrap', 'TTYWrap', 'CloseReq']);

/**
 * Ends the process with `code` at once when nothing is left to do: stdout and stderr hold nothing unwritten,
 * nobody listens for 'beforeExit' (where a library may still flush), and nothing but the standard streams keeps
 * the event loop alive. A natural exit would then only wait for the loop to wind down (about 8 ms of an
 * analyze); otherwise the process ends as it always did, when its last handle closes.
 * @param {number} code
 */
function exitWhenIdle(code) {
  process.exitCode = code;
  const idle =
    process.stdout.writableLength === 0 &&
    process.stderr.writableLength === 0 &&
    process.listenerCount('beforeExit') === 0 &&
    process.getActiveResourcesInfo().every((r) => QUIET_RESOURCES.has(r));
  if (idle) process.exit(code);
}

exports.CACHE_DIR_ENV = CACHE_DIR_ENV;
exports.STAMP_FILE = STAMP_FILE;
exports.BUNDLE_STAMP_SUFFIX = BUNDLE_STAMP_SUFFIX;
exports.distIsFresh = distIsFresh;
exports.loadMain = loadMain;
exports.exitWhenIdle = exitWhenIdle;
