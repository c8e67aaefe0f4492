// Runs a CommonJS bundle of dist/ with V8's code cache kept beside it, so a start skips compiling the
// functions an earlier start compiled (Node 20 has no compile cache for ES modules; vm.Script takes one).
// The cache is written once, by the first run that found none, into dist/ (never the user's cwd): a rebuild
// deletes it with the rest of dist/. Each cache names the SHA-256 of the source it was made from, because
// V8 itself checks only the source's length; any problem reading or writing it means a plain compile.
'use strict';
const { Buffer, isAscii } = require('node:buffer');
const { createHash } = require('node:crypto');
const { closeSync, fstatSync, openSync, readSync, renameSync, rmSync, statSync, writeFileSync } = require('node:fs');
// node:module's createRequire, from the loader class it is defined on: node:module itself loads Node's ES module
// loader and source maps, which nothing here needs.
const { createRequire } = module.constructor;
const { dirname } = require('node:path');
const vm = require('node:vm');

/** Suffix of the code cache file beside a bundle. */
const CODE_CACHE_SUFFIX = '.v8cache';

const DIGEST_BYTES = 32;

/**
 * The wrapper CommonJS gives a module, on the source's first line so stack traces keep their line numbers. Its
 * bytes go around the file's in the buffer the file is read into, so the source is decoded once, into the string
 * V8 compiles (a concatenation is a second string, which V8 copies whole to compile it).
 */
const HEAD = Buffer.from('(function (exports, require, module, __filename, __dirname, __requireWithCodeCache) {', 'latin1');
const TAIL = Buffer.from('\n})', 'latin1');

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

/**
 * Reads the file at `path` into `buffer` from `start` on, leaving `room` bytes after it, or into a new buffer of at
 * least `least` bytes when it does not fit: that buffer and the number of bytes read.
 */
function readInto(path, buffer, start, room, least) {
  const fd = openSync(path, 'r');
  try {
    const size = fstatSync(fd).size;
    const into = buffer !== null && buffer.length >= start + size + room ? buffer : Buffer.allocUnsafeSlow(Math.max(start + size + room, least));
    let n = 0;
    while (n < size) {
      const got = readSync(fd, into, start + n, size - n, n);
      if (got === 0) break; // shorter than when it was stat'ed: what it holds now
      n += got;
    }
    return { buffer: into, length: n };
  } finally {
    closeSync(fd);
  }
}

/** Compiles and runs one CommonJS file with its code cache, and records it in `scripts`. */
function compiled(file, scripts, requireWithCodeCache) {
  const cachePath = file + CODE_CACHE_SUFFIX;
  // One buffer for the file and then its cache, which is read into the pages the source was: a fresh page costs a
  // fault (~2 us here), and the two are about 1 MB for analyze. Nothing keeps it once the file is compiled.
  const { buffer, length: size } = readInto(file, null, HEAD.length, TAIL.length, sizeOf(cachePath));
  // Hashed as bytes (the same digest as of their UTF-8 text) and decoded once: a bundle is all ASCII (esbuild
  // escapes the rest), which decodes as Latin-1 by a plain copy, no UTF-8 decoding.
  const bytes = buffer.subarray(HEAD.length, HEAD.length + size);
  const digest = createHash('sha256').update(bytes).digest();
  HEAD.copy(buffer, 0);
  TAIL.copy(buffer, HEAD.length + size);
  // No import() in the file: Node 20 lets a vm.Script's import() reach its loader only through an experimental
  // option (the build turns a bundle's import() into require).
  const source = buffer.toString(isAscii(bytes) ? 'latin1' : 'utf8', 0, HEAD.length + size + TAIL.length);
  let cachedData;
  try {
    const stored = readInto(cachePath, buffer, 0, 0, 0);
    const data = stored.buffer.subarray(0, stored.length);
    if (data.length > DIGEST_BYTES && data.subarray(0, DIGEST_BYTES).equals(digest)) cachedData = data.subarray(DIGEST_BYTES);
  } catch {
    // No cache yet, or unreadable: compile from the source.
  }
  const script = new vm.Script(source, { filename: file, cachedData });
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

/** The size of the file at `path`, 0 when there is none or it cannot be stat'ed. */
function sizeOf(path) {
  try {
    return statSync(path, { throwIfNoEntry: false })?.size ?? 0;
  } catch {
    return 0;
  }
}

exports.CODE_CACHE_SUFFIX = CODE_CACHE_SUFFIX;
exports.canRunWithCodeCache = canRunWithCodeCache;
exports.runWithCodeCache = runWithCodeCache;
