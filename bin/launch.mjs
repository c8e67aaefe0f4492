// Starts the CLI from dist/ (compiled JavaScript, built by `npm install` through the `prepare` script)
// when dist/ was built from the sources as they are now, else from the TypeScript sources through tsx:
// a compiled start skips compiling some 400 files on every call, and an edited checkout never runs
// stale code. METIS_BENCH_NO_DIST=1 always takes the sources.
import { readFileSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The folder the CLI may keep derived indexes in (harness/cli/list/list-index.ts reads it). */
export const CACHE_DIR_ENV = 'METIS_BENCH_CACHE_DIR';

/** Name of the file in dist/ that records which source files (size, mtime) the build read. */
export const STAMP_FILE = 'stamp.json';

/**
 * True when `distDir` holds a finished build whose every input still has the size and mtime the build
 * saw. A missing or unreadable stamp, a missing input or any change means stale.
 * @param {URL} distDir the dist/ folder (a file: URL ending in '/')
 * @param {URL} rootDir the checkout the stamp's paths are relative to (a file: URL ending in '/')
 * @returns {boolean}
 */
export function distIsFresh(distDir, rootDir) {
  let inputs;
  try {
    inputs = JSON.parse(readFileSync(new URL(STAMP_FILE, distDir), 'utf8')).inputs;
  } catch {
    return false;
  }
  if (!inputs || typeof inputs !== 'object') return false;
  for (const [path, seen] of Object.entries(inputs)) {
    let now;
    try {
      now = statSync(new URL(path, rootDir));
    } catch {
      return false;
    }
    if (!Array.isArray(seen) || now.size !== seen[0] || now.mtimeMs !== seen[1]) return false;
  }
  return true;
}

/**
 * The CLI's `main`, from dist/ when it is fresh, else from harness/cli/main.ts through tsx.
 * @param {Record<string, string | undefined>} env
 * @returns {Promise<{ main(argv: string[]): Promise<number> }>}
 */
export async function loadMain(env = process.env) {
  const root = new URL('../', import.meta.url);
  const dist = new URL('dist/', root);
  // Derived indexes (bench list's) are kept in dist/ and only while it is fresh: made and read by the same
  // code, and deleted by a rebuild. Always set or cleared here, so a bench started by another bench never
  // inherits its parent's.
  delete env[CACHE_DIR_ENV];
  if (env.METIS_BENCH_NO_DIST !== '1' && distIsFresh(dist, root)) {
    env[CACHE_DIR_ENV] = fileURLToPath(dist);
    return import(new URL('main.js', dist).href);
  }
  const { register } = await import('tsx/esm/api');
  register();
  return import(new URL('harness/cli/main.ts', root).href);
}
