// Runs a CommonJS bundle of dist/ with V8's code cache kept beside it, so a start skips compiling the
// functions an earlier start compiled (Node 20 has no compile cache for ES modules; vm.Script takes one).
// The cache is written once, by the first run that found none, into dist/ (never the user's cwd): a rebuild
// deletes it with the rest of dist/. Each cache names the SHA-256 of the source it was made from, because
// V8 itself checks only the source's length; any problem reading or writing it means a plain compile.
'use strict';
const { Buffer, isAscii } = require('node:buffer');
const { createHash } = require('node:crypto');
const { readFileSync, renameSync, rmSync, writeFileSync } = require('node:fs');
const { createRequire } = require('node:module');
const { dirname } = require('node:path');
const vm = require('node:vm');

/** Suffix of the code cache file beside a bundle. */
const CODE_CACHE_SUFFIX = '.v8cache';

const DIGEST_BYTES = 32;

/**
 * False under --enable-source-maps, which Node applies to the modules it loads, not to a vm.Script: stack traces
 * then keep naming the sources.
 * @returns {boolean}
 */
function canRunWithCodeCache() {
  return !process.sourceMapsEnabled;
}

/**
 * Runs the CommonJS file at `file` as `require(file)` would, compiled with the code cache at
 * `file + CODE_CACHE_SUFFIX` when one made from this very source is there. The file may load other CommonJS
 * files of its own (dist/validators/) the same way, through `__requireWithCodeCache(absolutePath)`, which
 * its wrapper function receives beside `require`.
 * @param {string} file absolute path of the bundle
 * @returns {{ exports: any, cache: 'used' | 'none' | 'rejected', saveCache(): void }} the module's exports; what
 *   became of its cache (`rejected`: V8 refused it, as after a Node upgrade); `saveCache` writes, once, the
 *   cache of this file and of each file it loaded that had none usable, with the functions compiled so far
 *   (call it after the work, so they are many)
 */
function runWithCodeCache(file) {
  const scripts = new Map();
  const requireWithCodeCache = (path) => (scripts.get(path) ?? compiled(path, scripts, requireWithCodeCache)).exports;
  const main = compiled(file, scripts, requireWithCodeCache);
  let saved = false;
  return {
    exports: main.exports,
    cache: main.cache,
    saveCache() {
      if (saved) return;
      saved = true;
      for (const s of scripts.values()) if (s.cache !== 'used') s.save();
    },
  };
}

/** Compiles and runs one CommonJS file with its code cache, and records it in `scripts`. */
function compiled(file, scripts, requireWithCodeCache) {
  // Read once, hashed as bytes (the same digest as of their UTF-8 text) and decoded once: a bundle is all ASCII
  // (esbuild escapes the rest), which decodes as Latin-1 by a plain copy, no UTF-8 decoding.
  const bytes = readFileSync(file);
  const digest = createHash('sha256').update(bytes).digest();
  const source = bytes.toString(isAscii(bytes) ? 'latin1' : 'utf8');
  const cachePath = file + CODE_CACHE_SUFFIX;
  let cachedData;
  try {
    const stored = readFileSync(cachePath);
    if (stored.length > DIGEST_BYTES && stored.subarray(0, DIGEST_BYTES).equals(digest)) cachedData = stored.subarray(DIGEST_BYTES);
  } catch {
    // No cache yet, or unreadable: compile from the source.
  }
  // The wrapper CommonJS gives a module, on the source's first line so stack traces keep their line numbers.
  // No import() in the file: Node 20 lets a vm.Script's import() reach its loader only through an experimental
  // option (the build turns a bundle's import() into require).
  const script = new vm.Script(`(function (exports, require, module, __filename, __dirname, __requireWithCodeCache) {${source}\n})`, { filename: file, cachedData });
  const module = { exports: {} };
  const entry = {
    module,
    get exports() {
      return module.exports;
    },
    cache: cachedData === undefined ? 'none' : script.cachedDataRejected ? 'rejected' : 'used',
    save() {
      // Written whole under another name, then renamed: a concurrent start reads the old file or the new one.
      const tmp = `${cachePath}.${process.pid}.tmp`;
      try {
        writeFileSync(tmp, Buffer.concat([digest, script.createCachedData()]));
        renameSync(tmp, cachePath);
      } catch {
        // A read-only dist/ (an install owned by another user): run without a cache.
        rmSync(tmp, { force: true });
      }
    },
  };
  // Recorded before it runs, as require does, so a file that loads itself back gets its partial exports.
  scripts.set(file, entry);
  script.runInThisContext()(module.exports, createRequire(file), module, file, dirname(file), requireWithCodeCache);
  return entry;
}

exports.CODE_CACHE_SUFFIX = CODE_CACHE_SUFFIX;
exports.canRunWithCodeCache = canRunWithCodeCache;
exports.runWithCodeCache = runWithCodeCache;
