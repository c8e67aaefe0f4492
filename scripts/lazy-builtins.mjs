// An esbuild plugin for bundles (scripts/build-dist.mjs): Node builtins required when they are first used, not when the bundle loads.
import { createRequire } from 'node:module';

const NAMESPACE = 'lazy-builtin';

/**
 * Turns `require('node:NAME')` (or `NAME`, or an import of it) of each builtin named into a module of getters,
 * one per export of the builtin, that requires the builtin at the first one read: loading the bundle loads none
 * of them. For builtins whose exports are read as properties (functions called through them), not constructed.
 * @param {string[]} names
 * @returns {import('esbuild').Plugin}
 */
export function lazyBuiltins(names) {
  const requireBuiltin = createRequire(import.meta.url);
  return {
    name: 'lazy-builtins',
    setup(b) {
      b.onResolve({ filter: new RegExp(`^(node:)?(${names.join('|')})$`) }, (args) =>
        // The shim's own require of the builtin stays a plain require.
        args.namespace === NAMESPACE ? { path: args.path, external: true } : { path: args.path.replace(/^node:/, ''), namespace: NAMESPACE },
      );
      b.onLoad({ filter: /.*/, namespace: NAMESPACE }, (args) => {
        const id = JSON.stringify(`node:${args.path}`);
        const getters = Object.keys(requireBuiltin(`node:${args.path}`)).map((k) => `  get ${JSON.stringify(k)}() {\n    return load()[${JSON.stringify(k)}];\n  },`);
        return { contents: ['let loaded;', `const load = () => (loaded ??= require(${id}));`, 'module.exports = {', ...getters, '};'].join('\n'), loader: 'js' };
      });
    },
  };
}
