// How a bundle loads better-sqlite3's binary (scripts/build-dist.mjs): bindings' search, without loading bindings.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, isAbsolute, join, relative, sep } from 'node:path';

/**
 * JavaScript for an expression that loads `binary` of the package in `root` as `bindings` would: bindings,
 * given the package's folder (`rootExpression`, evaluated at run time) as `module_root`, tries a list of places in
 * order and loads the first one there. Loading bindings and its helper, and the exceptions of the places that
 * miss, cost about 1.4 ms of every analyze. So the build asks bindings for its list and keeps the places up to
 * the one that holds the binary now: the expression loads the first of them that exists, as bindings would, and
 * calls bindings itself when none does. With no binary found, or a place named after the Node version or
 * platform, it is the plain bindings call.
 * @param {string} root the package's folder, as the build finds it
 * @param {string} binary the binary's file name (`better_sqlite3.node`)
 * @param {string} rootExpression JavaScript giving the package's folder at run time
 * @returns {string}
 */
export function sqliteBinaryCall(root, binary, rootExpression) {
  const viaBindings = (at) => `require(require.resolve('bindings', { paths: [${at}] }))({ bindings: ${JSON.stringify(binary)}, module_root: ${at} })`;
  const plain = `((root) => ${viaBindings('root')})(${rootExpression})`;
  const bindings = createRequire(join(root, 'package.json'))('bindings');
  // bindings lists every place it tried when it finds nothing: ask it for a name that is nowhere.
  const absent = 'metis-bench-no-such-binary.node';
  let tries = [];
  try {
    bindings({ bindings: absent, module_root: root, path: true });
  } catch (e) {
    tries = Array.isArray(e?.tries) ? e.tries : [];
  }
  const specific = [process.versions.node, process.versions.modules, process.platform, process.arch];
  const places = [];
  for (const tried of tries) {
    if (basename(tried) !== absent) return plain;
    const place = relative(root, join(dirname(tried), binary));
    if (place.startsWith('..') || isAbsolute(place)) return plain;
    if (place.split(sep).some((part) => specific.some((s) => part.includes(s)))) return plain;
    places.push(place.split(sep).join('/'));
    if (existsSync(join(root, place)))
      return (
        `((root) => { for (const place of ${JSON.stringify(places)}) { const file = require('node:path').join(root, place); ` +
        `if (require('node:fs').existsSync(file)) { const b = require(file); b.path = file; return b; } } return ${viaBindings('root')}; })(${rootExpression})`
      );
  }
  return plain;
}
