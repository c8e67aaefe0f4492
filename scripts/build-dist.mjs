#!/usr/bin/env node
// Compiles the CLI into dist/ for a fast start (bin/launch.cjs runs it while it is fresh).
// `npm install` runs it as `prepare`; `npm run build` after editing sources makes the start fast again.
//   node scripts/build-dist.mjs [--outdir DIR] [--if-possible]
// --if-possible: on a failed build, warn and exit 0 (bench then runs the sources through tsx), so an
// install never fails on a source being edited.
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { BUNDLE_STAMP_SUFFIX, STAMP_FILE } from '../bin/launch.cjs';
import { lazyBuiltins } from './lazy-builtins.mjs';
import { withoutAnnotations } from './schema-annotations.mjs';
import { sqliteBinaryCall } from './sqlite-binary-call.mjs';
import { validatorCodeCache } from './validator-code-cache.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** Folders whose .ts and .json files may be compiled in; their size and mtime are taken before the build. */
const SOURCE_DIRS = ['harness', 'runtime', 'schemas'];
/** Where the sources keep the (empty) table of precompiled validators; the build swaps in the real one. */
const PRECOMPILED_MODULE = 'runtime/core/precompiled-validators.ts';
/** The shared ajv instance's options (runtime/core/schemas.ts reads the same file). */
const AJV_OPTIONS_FILE = 'runtime/core/ajv-options.json';
/** The module whose dynamic imports load each command (a one-command bundle keeps only its own). */
const COMMAND_CATALOG = 'harness/cli/command-catalog.ts';
/** Commands that also get a one-command CommonJS bundle, dist/COMMAND.cjs (bin/launch.cjs loadMain). */
const ONE_COMMAND_BUNDLES = ['analyze'];
/**
 * Packages compiled into a one-command bundle, so its code cache holds them too: pure JavaScript loaded on
 * every start. The others stay outside: native (better-sqlite3 finds its binary from its own folder) or
 * imported lazily by code a command seldom runs.
 */
const INLINED_PACKAGES = ['commander', 'decimal.js'];
/**
 * Node builtins that code compiled into a one-command bundle requires when it loads but uses on rare paths
 * only: each is required at its first use instead (scripts/lazy-builtins.mjs). commander requires child_process (and with it
 * net, dgram and the streams) for executable subcommands, which the CLI has none of; node:module (with Node's ES
 * module loader and source maps) is there for createRequire, called where a package is loaded late (ajv, yaml).
 */
const LAZY_BUILTINS = ['child_process', 'module'];
/**
 * better-sqlite3's lib/database.js finds its binary through `bindings`, which takes the package's folder from
 * the caller's file (from a stack trace): inlined, that would be the bundle's. Its JavaScript (13 files, loaded
 * on every analyze) is inlined only where that call is this exact line, which the build replaces by a search of
 * its own (scripts/sqlite-binary-call.mjs); otherwise the package stays outside.
 */
const SQLITE_LIB = 'better-sqlite3/lib/database.js';
const SQLITE_BINDINGS_CALL = "require('bindings')('better_sqlite3.node')";
const SQLITE_BINARY = 'better_sqlite3.node';
/** The package's folder, found at run time (bindings' `module_root`). */
const SQLITE_ROOT = "require('node:path').dirname(require.resolve('better-sqlite3/package.json'))";

const { values } = parseArgs({ options: { outdir: { type: 'string', default: 'dist' }, 'if-possible': { type: 'boolean', default: false } } });
const outdir = resolve(ROOT, values.outdir);

try {
  await buildDist(outdir);
} catch (e) {
  if (!values['if-possible']) throw e;
  rmSync(join(outdir, STAMP_FILE), { force: true });
  for (const command of ONE_COMMAND_BUNDLES) rmSync(join(outdir, `${command}.cjs${BUNDLE_STAMP_SUFFIX}`), { force: true });
  console.warn(`warning: could not compile the CLI into ${relative(ROOT, outdir) || '.'}/ (${firstProblem(e)}); bench runs from the TypeScript sources through tsx, which starts slower. Fix the build and run: npm run build`);
}

/** esbuild's first error as file:line: text, else the error's first line. */
function firstProblem(e) {
  const first = e?.errors?.[0];
  if (first?.location) return `${first.location.file}:${first.location.line}: ${first.text}`;
  return e instanceof Error ? e.message.split('\n')[0] : String(e);
}

/** Builds harness/cli/main.ts and its command chunks into `dir`, then writes the stamp of its inputs. */
async function buildDist(dir) {
  const { build } = await import('esbuild');
  // Taken before the build: a source edited while esbuild reads it then shows as changed (stale), never as fresh.
  const before = statSources();
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const validators = await standaloneValidators(dir);
  const common = {
    absWorkingDir: ROOT,
    entryPoints: { main: 'harness/cli/main.ts' },
    outdir: dir,
    bundle: true,
    platform: 'node',
    target: 'node20',
    packages: 'external',
    keepNames: true,
    sourcemap: 'linked',
    metafile: true,
    logLevel: 'warning',
  };
  const result = await build({
    ...common,
    // Every output file sits directly in `dir`, so one relative path leads from any of them to the sources.
    chunkNames: '[name]-[hash]',
    splitting: true,
    format: 'esm',
    plugins: [precompiledValidators(validators.code), sourceUrls(dir)],
  });
  // The schemas were compiled into the bundle: an edited schema makes dist/ stale like an edited source.
  const inputsOf = (r) => [...Object.keys(r.metafile.inputs).filter((path) => !path.includes(':')), ...validators.inputs, 'scripts/build-dist.mjs', 'scripts/lazy-builtins.mjs', 'scripts/sqlite-binary-call.mjs'];
  const bundles = {};
  for (const command of ONE_COMMAND_BUNDLES) bundles[`${command}.cjs`] = inputsOf(await oneCommandBundle(build, common, command, validators.code, dir));
  const inputs = {};
  for (const path of new Set([...inputsOf(result), ...Object.values(bundles).flat()])) {
    const seen = before.get(path) ?? statOf(path);
    if (!seen) throw new Error(`${path} appeared during the build`);
    inputs[path] = seen;
  }
  // Each one-command bundle's inputs in a stamp of its own, which bin/launch.cjs checks alone before running it.
  for (const [bundle, paths] of Object.entries(bundles)) writeFileSync(join(dir, bundle + BUNDLE_STAMP_SUFFIX), `${JSON.stringify(paths.map((path) => [path, ...inputs[path]]))}\n`);
  writeFileSync(join(dir, STAMP_FILE), `${JSON.stringify({ built_at: new Date().toISOString(), inputs }, null, 1)}\n`);
}


/**
 * ajv standalone code for every schema under schemas/ (not schemas/types/), compiled with the options of
 * runtime/core/schemas.ts (ajv-options.json), one CommonJS file each under `dir`/validators/, and an ES module
 * exporting PRECOMPILED (schema path -> validator, loaded at first use). A schema
 * ajv refuses is left out: the CLI then compiles it at first use and reports the problem as before.
 */
async function standaloneValidators(dir) {
  const [{ Ajv }, { default: addFormats }, { default: standaloneCode }, { buildSync }] = await Promise.all([import('ajv'), import('ajv-formats'), import('ajv/dist/standalone/index.js'), import('esbuild')]);
  const options = JSON.parse(readFileSync(join(ROOT, AJV_OPTIONS_FILE), 'utf8'));
  const ajv = addFormats(new Ajv({ ...options, code: { source: true } }));
  const files = [];
  const walk = (d) => {
    for (const e of readdirSync(join(ROOT, d), { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const path = `${d}/${e.name}`;
      if (e.isDirectory()) {
        if (path !== 'schemas/types') walk(path);
      } else if (e.name.endsWith('.json')) files.push(path);
    }
  };
  walk('schemas');
  const keys = new Map();
  for (const path of files) {
    const rel = path.slice('schemas/'.length);
    try {
      const schema = withoutAnnotations(JSON.parse(readFileSync(join(ROOT, path), 'utf8')));
      if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) continue;
      const key = typeof schema.$id === 'string' ? schema.$id : rel;
      if (!ajv.getSchema(key)) ajv.addSchema(schema, typeof schema.$id === 'string' ? undefined : rel);
      keys.set(rel, key);
    } catch {
      // Not a schema ajv takes (a duplicate $id, bad JSON): compiled, and refused, at first use instead.
    }
  }
  // One CommonJS file per schema, required only when a command first validates against it: one module of
  // every schema was 2 MB that each command using a schema compiled whole.
  mkdirSync(join(dir, 'validators'), { recursive: true });
  const table = [];
  for (const [rel, key] of keys) {
    let validate;
    try {
      validate = ajv.getSchema(key);
    } catch {
      continue;
    }
    if (!validate) continue;
    const file = `v${table.length}.cjs`;
    const path = join(dir, 'validators', file);
    // The few ajv and ajv-formats helpers it requires are bundled in: resolving and loading those packages
    // was more than loading the validator itself from its code cache (ajv-formats' formats alone ~2 ms).
    const bundled = buildSync({ stdin: { contents: standaloneCode(ajv, validate), resolveDir: ROOT, sourcefile: file, loader: 'js' }, bundle: true, platform: 'node', format: 'cjs', target: 'node20', minifyWhitespace: true, write: false, logLevel: 'warning' });
    writeFileSync(path, bundled.outputFiles[0].text);
    // V8's code for it, compiled at build time (scripts/validator-code-cache.mjs): no parse and compile at first use.
    writeFileSync(`${path}.v8`, validatorCodeCache(path, validate.schema));
    table.push(`[${JSON.stringify(rel)}, ${JSON.stringify(file)}]`);
  }
  const code = [
    "import { readFileSync } from 'node:fs';",
    "import { createRequire } from 'node:module';",
    "import { fileURLToPath } from 'node:url';",
    `import { compileValidator } from ${JSON.stringify(join(ROOT, 'scripts', 'validator-code-cache.mjs'))};`,
    `const files = new Map([${table.join(', ')}]);`,
    'const loaded = new Map();',
    '/**',
    ' * The validator file at `path`: in a one-command bundle run by bin/code-cache.cjs, through its loader (the code',
    ' * cache it keeps per file); elsewhere compiled with the V8 code the build made for it (V8 compiles afresh when',
    ' * it refuses that code).',
    ' */',
    'function load(path) {',
    "  if (typeof __requireWithCodeCache === 'function') return __requireWithCodeCache(path);",
    '  let cache;',
    '  try {',
    '    cache = readFileSync(`${path}.v8`);',
    '  } catch {',
    '    return createRequire(import.meta.url)(path);',
    '  }',
    '  return compileValidator(path, cache).validate;',
    '}',
    'export const PRECOMPILED = {',
    '  get(relPath) {',
    '    const file = files.get(relPath);',
    '    if (file === undefined) return undefined;',
    '    if (!loaded.has(relPath)) loaded.set(relPath, load(fileURLToPath(new URL(`./validators/${file}`, import.meta.url))));',
    '    return loaded.get(relPath);',
    '  },',
    '};',
  ].join('\n');
  return { code, inputs: [...files, AJV_OPTIONS_FILE, 'scripts/validator-code-cache.mjs', 'scripts/schema-annotations.mjs'] };
}

/**
 * `dist/COMMAND.cjs`: the CLI's main with that one command, everything it may load in one CommonJS file,
 * for a process that runs nothing else (bin/analyze.cjs). bin/code-cache.cjs runs it with V8's code cache,
 * which Node 20 offers for CommonJS only; one file also spares the ES module loader's cost per module (some
 * forty on analyze's path). Packages stay outside, loaded where the code asks for them.
 */
function oneCommandBundle(build, common, command, validatorsCode, dir) {
  return build({
    ...common,
    entryPoints: { [command]: 'harness/cli/main.ts' },
    format: 'cjs',
    outExtension: { '.js': '.cjs' },
    minifyWhitespace: true,
    // A package imported lazily (an embedder's SDK) is required instead: a vm.Script's import() needs an
    // experimental loader hook in Node 20 that warns on use. Every package this bundle reaches has a CommonJS entry.
    supported: { 'dynamic-import': false },
    // The sources are ES modules: strict, and finding their files through import.meta.url (sourceUrls).
    banner: { js: '"use strict";\nconst __importMetaUrl = require("node:url").pathToFileURL(__filename).href;' },
    define: { 'import.meta.url': '__importMetaUrl' },
    packages: undefined,
    plugins: [lazyBuiltins(LAZY_BUILTINS), onlyCommand(command), ...inlinedPackages(), precompiledValidators(validatorsCode), sourceUrls(dir)],
  });
}

/** The plugins that keep packages outside a one-command bundle but INLINED_PACKAGES and, where it can, better-sqlite3. */
function inlinedPackages() {
  const lib = createRequire(join(ROOT, 'package.json')).resolve(SQLITE_LIB);
  if (!readFileSync(lib, 'utf8').includes(SQLITE_BINDINGS_CALL)) return [packagesOutsideBut(INLINED_PACKAGES)];
  const rooted = {
    name: 'better-sqlite3-rooted',
    setup(b) {
      // Read at run time, from the package's own folder: the bundle's copy is found through it.
      b.onResolve({ filter: /^better-sqlite3\/package\.json$/ }, (args) => ({ path: args.path, external: true }));
      b.onLoad({ filter: /[\\/]better-sqlite3[\\/]lib[\\/]database\.js$/ }, async (args) => ({
        contents: readFileSync(args.path, 'utf8').replace(SQLITE_BINDINGS_CALL, sqliteBinaryCall(dirname(dirname(args.path)), SQLITE_BINARY, SQLITE_ROOT)),
        loader: 'js',
      }));
    },
  };
  return [rooted, packagesOutsideBut([...INLINED_PACKAGES, 'better-sqlite3'])];
}

/** Keeps every package out of the bundle, as `packages: 'external'` does, but the pure-JavaScript ones named. */
function packagesOutsideBut(inlined) {
  return {
    name: 'packages-outside-but',
    setup(b) {
      b.onResolve({ filter: /^[^./]/ }, (args) => {
        if (isAbsolute(args.path) || args.path.startsWith('node:')) return undefined;
        const parts = args.path.split('/');
        const name = args.path.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
        return inlined.includes(name) ? undefined : { path: args.path, external: true };
      });
    },
  };
}

/**
 * Leaves every command but `command` out of the command catalog's imports: their modules would be bundled
 * for nothing, as this bundle's process never loads them. Loading one anyway fails loudly.
 */
function onlyCommand(command) {
  return {
    name: 'only-command',
    setup(b) {
      b.onResolve({ filter: /^\.\/commands\/[a-z-]+\.ts$/ }, (args) =>
        relative(ROOT, args.importer).split(sep).join('/') === COMMAND_CATALOG && args.path !== `./commands/${command}.ts` ? { path: args.path, namespace: 'not-bundled' } : undefined,
      );
      b.onLoad({ filter: /.*/, namespace: 'not-bundled' }, (args) => ({
        contents: `throw new Error(${JSON.stringify(`dist/${command}.cjs holds the ${command} command only, not ${args.path}`)});`,
        loader: 'js',
      }));
    },
  };
}

/** Swaps the sources' empty table of precompiled validators for the standalone code. */
function precompiledValidators(code) {
  return {
    name: 'precompiled-validators',
    setup(b) {
      b.onLoad({ filter: /precompiled-validators\.ts$/ }, (args) =>
        relative(ROOT, args.path).split(sep).join('/') === PRECOMPILED_MODULE ? { contents: code, loader: 'js', resolveDir: join(ROOT, 'runtime', 'core') } : undefined,
      );
    },
  };
}

/**
 * Modules find their data files (schemas, prices, prompts) next to their source through
 * `import.meta.url`; in a bundle that URL is the chunk's, so each module's is pointed back at its own
 * source file, relative to the output folder so the checkout can move.
 */
function sourceUrls(dir) {
  return {
    name: 'source-import-meta-url',
    setup(b) {
      b.onLoad({ filter: /\.ts$/ }, async (args) => {
        const { readFile } = await import('node:fs/promises');
        const text = await readFile(args.path, 'utf8');
        if (!text.includes('import.meta.url')) return undefined;
        const fromOut = relative(dir, args.path).split(sep).join('/');
        return { contents: text.replaceAll('import.meta.url', `new URL(${JSON.stringify(fromOut)}, import.meta.url).href`), loader: 'ts' };
      });
    },
  };
}

/** [size, mtimeMs] of every .ts and .json file under the source folders, by path relative to the checkout. */
function statSources() {
  const seen = new Map();
  const walk = (d) => {
    for (const e of readdirSync(join(ROOT, d), { withFileTypes: true })) {
      const path = `${d}/${e.name}`;
      if (e.isDirectory()) walk(path);
      else if (/\.(ts|json)$/.test(e.name)) seen.set(path, statOf(path));
    }
  };
  for (const d of SOURCE_DIRS) walk(d);
  return seen;
}

function statOf(path) {
  try {
    const s = statSync(join(ROOT, path));
    return [s.size, s.mtimeMs];
  } catch {
    return null;
  }
}
