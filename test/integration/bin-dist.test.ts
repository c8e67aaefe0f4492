import { execFile, spawnSync } from 'node:child_process';
import { closeSync, copyFileSync, cpSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { CODE_CACHE_SUFFIX } from '../../bin/code-cache.cjs';
import { BUNDLE_STAMP_SUFFIX, CACHE_DIR_ENV, distIsFresh } from '../../bin/launch.cjs';
import { bench, REPO_ROOT, tempDir } from '../support/cli.ts';
import { sharedRun } from '../support/shared-run.ts';

const run = promisify(execFile);

/** `node FILE ARGS` from `cwd`, with `env` added; stdout and the exit code. */
async function node(file: string, args: string[], opts: { cwd: string; env?: Record<string, string> }): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const r = await run(process.execPath, [file, ...args], { cwd: opts.cwd, env: { ...process.env, ...opts.env }, maxBuffer: 64 << 20 });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (e) {
    const x = e as { code: number; stdout: string; stderr: string };
    return { code: x.code, stdout: x.stdout, stderr: x.stderr };
  }
}

/**
 * A checkout in miniature: the real bin/ launchers, a `main` in the sources and another in dist/ that
 * say which one ran, and a stamp of the source as it is now.
 */
function miniCheckout(): { root: string; source: string } {
  const root = tempDir('bench-bin-');
  mkdirSync(join(root, 'bin'));
  for (const f of ['bench.mjs', 'analyze.cjs', 'launch.cjs', 'code-cache.cjs']) copyFileSync(join(REPO_ROOT, 'bin', f), join(root, 'bin', f));
  symlinkSync(join(REPO_ROOT, 'node_modules'), join(root, 'node_modules'));
  writeFileSync(join(root, 'package.json'), '{ "type": "module" }\n');
  mkdirSync(join(root, 'harness', 'cli'), { recursive: true });
  const source = join(root, 'harness', 'cli', 'main.ts');
  writeFileSync(source, "export async function main(argv: string[]): Promise<number> {\n  console.log(`sources ${argv.join(' ')}`);\n  return 0;\n}\n");
  mkdirSync(join(root, 'dist'));
  writeFileSync(join(root, 'dist', 'main.js'), "export async function main(argv) {\n  console.log(`dist ${argv.join(' ')}`);\n  return 0;\n}\n");
  const s = statSync(source);
  writeFileSync(join(root, 'dist', 'stamp.json'), JSON.stringify({ inputs: { 'harness/cli/main.ts': [s.size, s.mtimeMs] } }));
  return { root, source };
}

describe('bin/bench.mjs and bin/analyze.cjs', () => {
  it('run dist/ while it matches the sources, and the sources through tsx once it is stale, missing or turned off', async () => {
    const { root, source } = miniCheckout();
    const bin = join(root, 'bin', 'bench.mjs');
    expect((await node(bin, ['list'], { cwd: root })).stdout).toBe('dist list\n');
    expect((await node(join(root, 'bin', 'analyze.cjs'), ['--db-path', 'x.db'], { cwd: root })).stdout).toBe('dist analyze --db-path x.db\n');
    expect((await node(bin, ['list'], { cwd: root, env: { METIS_BENCH_NO_DIST: '1' } })).stdout).toBe('sources list\n');
    // An edit after the build: the launcher must not run the old compiled code.
    writeFileSync(source, "export async function main(argv: string[]): Promise<number> {\n  console.log(`edited ${argv.join(' ')}`);\n  return 0;\n}\n");
    expect((await node(bin, ['list'], { cwd: root })).stdout).toBe('edited list\n');
    rmSync(join(root, 'dist', 'stamp.json'));
    expect((await node(bin, ['run'], { cwd: root })).stdout).toBe('edited run\n');
  });

  it('start analyze without the ES module loader, and end it with exit 1 and the stack when its main throws', async () => {
    const { root, source } = miniCheckout();
    // The bundle says whether the process set up Node's ES module loader (about 5 ms of a start) before it ran.
    writeFileSync(
      join(root, 'dist', 'analyze.cjs'),
      "exports.main = async (argv) => {\n  if (argv.includes('--throw')) throw new Error('main failed');\n  console.log(`esm loader: ${process.moduleLoadList.includes('NativeModule internal/modules/esm/module_job')}`);\n  return 0;\n};\n",
    );
    writeFileSync(join(root, 'dist', `analyze.cjs${BUNDLE_STAMP_SUFFIX}`), JSON.stringify([['harness/cli/main.ts', statSync(source).size, statSync(source).mtimeMs]]));
    const analyze = join(root, 'bin', 'analyze.cjs');
    expect((await node(analyze, ['--db-path', 'x.db'], { cwd: root })).stdout).toBe('esm loader: false\n');
    // The same bundle run from an ES module entry does load it: the check above can fail.
    const esmEntry = join(root, 'bin', 'probe.mjs');
    writeFileSync(esmEntry, "import { createRequire } from 'node:module';\nconst r = createRequire(import.meta.url);\nconsole.log(`esm loader: ${process.moduleLoadList.includes('NativeModule internal/modules/esm/module_job')}`);\nvoid r;\n");
    expect((await node(esmEntry, [], { cwd: root })).stdout).toBe('esm loader: true\n');
    const failed = await node(analyze, ['--throw'], { cwd: root });
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain('Error: main failed');
  });

  it('start analyze from its one-command bundle dist/analyze.cjs when the build made one, with a code cache in dist/', async () => {
    const { root, source } = miniCheckout();
    writeFileSync(join(root, 'dist', 'analyze.cjs'), "exports.main = async (argv) => {\n  console.log(`bundle ${argv.join(' ')}`);\n  return 0;\n};\n");
    // A second source that main.js was built from and the bundle was not.
    const other = join(root, 'harness', 'cli', 'other.ts');
    writeFileSync(other, 'export const other = 1;\n');
    const stat = (f: string) => [statSync(f).size, statSync(f).mtimeMs];
    const inputs = { 'harness/cli/main.ts': stat(source), 'harness/cli/other.ts': stat(other) };
    writeFileSync(join(root, 'dist', 'stamp.json'), JSON.stringify({ inputs }));
    writeFileSync(join(root, 'dist', `analyze.cjs${BUNDLE_STAMP_SUFFIX}`), JSON.stringify([['harness/cli/main.ts', ...stat(source)]]));
    const analyze = join(root, 'bin', 'analyze.cjs');
    // A help run compiles little: the cache is left to the first run that does the work.
    expect((await node(analyze, ['--help'], { cwd: root })).stdout).toBe('bundle analyze --help\n');
    expect(readdirSync(join(root, 'dist'))).not.toContain(`analyze.cjs${CODE_CACHE_SUFFIX}`);
    expect((await node(analyze, ['--db-path', 'x.db'], { cwd: root })).stdout).toBe('bundle analyze --db-path x.db\n');
    expect(readdirSync(join(root, 'dist'))).toContain(`analyze.cjs${CODE_CACHE_SUFFIX}`);
    // bench analyze and every other command keep to dist/main.js.
    expect((await node(join(root, 'bin', 'bench.mjs'), ['analyze'], { cwd: root })).stdout).toBe('dist analyze\n');
    expect((await node(analyze, ['--help'], { cwd: root, env: { METIS_BENCH_NO_DIST: '1' } })).stdout).toBe('sources analyze --help\n');
    // Source maps apply to modules Node loads, not to a vm.Script: with them on, analyze takes dist/main.js.
    expect((await node(analyze, ['--help'], { cwd: root, env: { NODE_OPTIONS: '--enable-source-maps' } })).stdout).toBe('dist analyze --help\n');
    // The bundle is judged by its own inputs: an edit elsewhere leaves it running (main.js is stale then),
    // an edit of one of them makes analyze run the sources.
    writeFileSync(other, 'export const other = 2;\n');
    expect((await node(analyze, ['--help'], { cwd: root })).stdout).toBe('bundle analyze --help\n');
    expect((await node(join(root, 'bin', 'bench.mjs'), ['list'], { cwd: root })).stdout).toBe('sources list\n');
    // Without its own stamp the bundle is never taken to be fresh.
    const bundleStamp = join(root, 'dist', `analyze.cjs${BUNDLE_STAMP_SUFFIX}`);
    const kept = readFileSync(bundleStamp);
    rmSync(bundleStamp);
    expect((await node(analyze, ['--help'], { cwd: root })).stdout).toBe('sources analyze --help\n');
    writeFileSync(bundleStamp, kept);
    writeFileSync(source, "export async function main(argv: string[]): Promise<number> {\n  console.log(`edited ${argv.join(' ')}`);\n  return 0;\n}\n");
    expect((await node(analyze, ['--help'], { cwd: root })).stdout).toBe('edited analyze --help\n');
  });

  it('point the CLI at dist/ for its indexes only while dist/ runs, never at a folder inherited from a parent', async () => {
    const { root, source } = miniCheckout();
    const says = (where: string) => `export async function main() {\n  console.log(\`${where} \${process.env.METIS_BENCH_CACHE_DIR ?? '-'}\`);\n  return 0;\n}\n`;
    writeFileSync(join(root, 'dist', 'main.js'), says('dist'));
    const bin = join(root, 'bin', 'bench.mjs');
    const inherited = { METIS_BENCH_CACHE_DIR: '/elsewhere/dist/' };
    expect((await node(bin, ['list'], { cwd: root, env: inherited })).stdout).toBe(`dist ${join(root, 'dist')}/\n`);
    // Stale dist/: the sources run, and no index folder is named (their code is not the code that made it).
    writeFileSync(source, says('edited').replace('main()', 'main(): Promise<number>'));
    expect((await node(bin, ['list'], { cwd: root, env: inherited })).stdout).toBe('edited -\n');
  });
});

describe('the compiled CLI (scripts/build-dist.mjs)', () => {
  const out = join(REPO_ROOT, 'test-output', `dist-${process.pid}-${Date.now()}`);
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  let building: Promise<{ code: number; stderr: string }> | null = null;
  /** The build into `out`, made by the first test that needs it. */
  const built = () => (building ??= node(join(REPO_ROOT, 'scripts', 'build-dist.mjs'), ['--outdir', out], { cwd: REPO_ROOT }));

  it('prints what the sources print, and finds its data files beside the sources', async () => {
    const b = await built();
    expect(b.code, b.stderr).toBe(0);
    const stamp = JSON.parse(readFileSync(join(out, 'stamp.json'), 'utf8')) as { inputs: Record<string, [number, number]> };
    // The schemas are compiled into dist/ (ajv standalone): an edited schema or ajv option makes it stale.
    expect(Object.keys(stamp.inputs)).toEqual(
      expect.arrayContaining(['harness/cli/main.ts', 'harness/cli/commands/run.ts', 'scripts/build-dist.mjs', 'schemas/workload.schema.json', 'schemas/events/turn.started.json', 'runtime/core/ajv-options.json']),
    );
    expect(distIsFresh(new URL(`file://${out}/`), new URL(`file://${REPO_ROOT}`))).toBe(true);
    // The analyze bundle's own inputs, in its own stamp as the whole build's saw them: its command and the schemas,
    // not the other commands.
    const analyzeStamp = JSON.parse(readFileSync(join(out, `analyze.cjs${BUNDLE_STAMP_SUFFIX}`), 'utf8')) as [string, number, number][];
    for (const [path, size, mtimeMs] of analyzeStamp) expect(stamp.inputs[path], path).toEqual([size, mtimeMs]);
    const analyzeInputs = analyzeStamp.map(([path]) => path);
    expect(analyzeInputs).toEqual(expect.arrayContaining(['harness/cli/main.ts', 'harness/cli/commands/analyze.ts', 'scripts/build-dist.mjs', 'schemas/report.schema.json']));
    expect(analyzeInputs).not.toContain('harness/cli/commands/run.ts');
    // A vm.Script's import() would need Node 20's experimental loader option (which warns): the bundle has none.
    expect(readFileSync(join(out, 'analyze.cjs'), 'utf8')).not.toMatch(/(?<![\w$.])import\(/);
    expect(distIsFresh(new URL(`file://${out}/`), new URL(`file://${REPO_ROOT}`), 'analyze.cjs')).toBe(true);
    // One script runs the compiled main, as bin/ does with dist/main.js.
    const probe = join(out, 'probe.mjs');
    writeFileSync(probe, "const { main } = await import('./main.js');\nprocess.exitCode = await main(process.argv.slice(2));\n");
    // Workloads the precompiled validators must judge as the runtime-compiled ones do: an unknown key, a value
    // outside an enum, a default filled in.
    const broken = tempDir('bench-dist-bad-');
    for (const [name, edit] of [
      ['fix-a-bug-small', (t: string) => `${t}\nnot_a_key: 1\n`],
      ['regex-with-edge-cases', (t: string) => t.replace(/^signal_strength: \w+$/m, 'signal_strength: loud')],
    ] as const) {
      cpSync(join(REPO_ROOT, 'workloads', name), join(broken, name), { recursive: true });
      const f = join(broken, name, 'workload.yaml');
      writeFileSync(f, edit(readFileSync(f, 'utf8')));
    }
    for (const args of [
      ['--help'],
      ['list', '--json'],
      ['validate', join(REPO_ROOT, 'workloads', 'fix-a-bug-small')],
      ['validate', join(REPO_ROOT, 'workloads', 'cache-gptcache'), join(REPO_ROOT, 'workloads', 'routellm-gsm8k')],
      ['validate', join(broken, 'fix-a-bug-small')],
      ['validate', join(broken, 'regex-with-edge-cases')],
    ]) {
      const compiled = await node(probe, args, { cwd: REPO_ROOT });
      const sources = await bench(args);
      expect(compiled.code, args.join(' ')).toBe(sources.code);
      expect(compiled.stdout.trimEnd(), args.join(' ')).toBe(sources.stdout.trimEnd());
      expect(compiled.stderr.trimEnd(), args.join(' ')).toBe(sources.stderr.trimEnd());
    }
  });

  it('runs analyze from its one-command bundle as the sources run it, with and without the code cache', async () => {
    const b = await built();
    expect(b.code, b.stderr).toBe(0);
    // The bundle run as bin/launch.cjs runs it; the first start writes the cache, the second uses it.
    const probe = join(out, 'probe-analyze.mjs');
    writeFileSync(
      probe,
      `import { runWithCodeCache } from ${JSON.stringify(pathToFileURL(join(REPO_ROOT, 'bin', 'code-cache.cjs')).href)};\n` +
        "const s = runWithCodeCache(new URL('./analyze.cjs', import.meta.url).pathname);\nprocess.exitCode = await s.exports.main(process.argv.slice(2));\ns.saveCache();\nconsole.error(`cache: ${s.cache}`);\n",
    );
    const env = { PATH: process.env.PATH ?? '' };
    const db = await sharedRun(['--workload', 'fix-a-bug-small', '--workload', 'multi-step-with-delegation', '--quiet'], env);
    const json = join(tempDir('bench-dist-analyze-'), 'analyze.json');
    const report = ['analyze', '--skip-execute', '--db-path', db, '--json', json, '--force'];
    const caches: string[] = [];
    for (const args of [report, report, ['analyze', '--help'], ['analyze', '--db-path', join(out, 'no-such.db')], ['analyze', '--stream-report', json]]) {
      const sources = await bench(args, { env });
      const sourcesJson = args === report ? readFileSync(json, 'utf8') : null;
      const compiled = await node(probe, args, { cwd: REPO_ROOT, env });
      const stderr = compiled.stderr.trimEnd().split('\n');
      caches.push(stderr.pop()!);
      expect(compiled.code, args.join(' ')).toBe(sources.code);
      expect(compiled.stdout.trimEnd(), args.join(' ')).toBe(sources.stdout.trimEnd());
      expect(stderr.join('\n'), args.join(' ')).toBe(sources.stderr.trimEnd());
      if (sourcesJson !== null) expect(readFileSync(json, 'utf8'), args.join(' ')).toBe(sourcesJson);
    }
    expect(caches).toEqual(['cache: none', 'cache: used', 'cache: used', 'cache: used', 'cache: used']);
  });

  it('loads no Node builtin or package file for analyze that its report does not use', async () => {
    const b = await built();
    expect(b.code, b.stderr).toBe(0);
    // A CommonJS start, so that Node's ES module loader (which reads files through fs/promises and readline)
    // adds nothing; stdout and stderr go to files, as a pipe would load net for them.
    // `loaded`: the bundle required as a module, or run as bin/analyze.cjs runs it (bin/code-cache.cjs).
    const probeOf = (name: string, loaded: string) => {
      const probe = join(out, name);
      writeFileSync(
        probe,
        "const fs = require('node:fs');\nconst [list, ...args] = process.argv.slice(2);\n" +
          `${loaded}.main(args).then((code) => {\n  process.exitCode = code;\n  fs.writeFileSync(list, JSON.stringify({ builtins: process.moduleLoadList, files: Object.keys(require.cache) }));\n});\n`,
      );
      return probe;
    };
    const probe = probeOf('probe-builtins.cjs', "require('./analyze.cjs')");
    const codeCache = `require(${JSON.stringify(join(REPO_ROOT, 'bin', 'code-cache.cjs'))})`;
    const probeCached = probeOf('probe-builtins-cached.cjs', `${codeCache}.runWithCodeCache(require('node:path').join(__dirname, 'analyze.cjs')).exports`);
    const env = { PATH: process.env.PATH ?? '' };
    const db = await sharedRun(['--workload', 'fix-a-bug-small', '--workload', 'multi-step-with-delegation', '--quiet'], env);
    const dir = tempDir('bench-dist-builtins-');
    /** One analyze in a fresh process: the builtins it loaded and its files. */
    const analyzed = (run: string, extraEnv: Record<string, string>): { builtins: string[]; files: string[] } => {
      const [list, json, stdout, stderr] = [join(dir, 'builtins.json'), join(dir, 'analyze.json'), join(dir, 'stdout.txt'), join(dir, 'stderr.txt')];
      const [o, e] = [openSync(stdout, 'w'), openSync(stderr, 'w')];
      const r = spawnSync(process.execPath, [run, list, 'analyze', '--skip-execute', '--db-path', db, '--json', json, '--force'], { cwd: REPO_ROOT, env: { ...env, ...extraEnv }, stdio: ['ignore', o, e] });
      closeSync(o);
      closeSync(e);
      expect([0, 1], readFileSync(stderr, 'utf8')).toContain(r.status);
      expect(readFileSync(stdout, 'utf8')).toContain('savings');
      const loaded = JSON.parse(readFileSync(list, 'utf8')) as { builtins: string[]; files: string[] };
      return { builtins: loaded.builtins.filter((m) => m.startsWith('NativeModule ')).map((m) => m.slice('NativeModule '.length)), files: loaded.files };
    };
    const loaded = analyzed(probe, {});
    const builtins = loaded.builtins;
    // The report needs crypto (SHA-256) and vm (the validators' code cache); it never starts a process
    // (commander requires child_process for executable subcommands), reads a line or times itself.
    expect(builtins).toEqual(expect.arrayContaining(['fs', 'crypto', 'vm']));
    for (const unused of ['child_process', 'net', 'dgram', 'perf_hooks', 'readline', 'internal/readline/interface', 'internal/fs/promises']) expect(builtins, unused).not.toContain(unused);
    // Run as bin/analyze.cjs runs it, once its parsed files are kept: no node:module (with it come Node's ES module
    // loader and source maps), which the code needs only to load a package late (ajv, yaml).
    const kept = { [CACHE_DIR_ENV]: tempDir('bench-dist-kept-') };
    analyzed(probeCached, kept);
    expect(analyzed(probeCached, kept).builtins).not.toContain('module');
    // better-sqlite3's binary is loaded from where the build found it, without the bindings package's search.
    expect(loaded.files.filter((f) => f.endsWith('.node')).map((f) => basename(f))).toEqual(['better_sqlite3.node']);
    expect(loaded.files.filter((f) => /[\\/]node_modules[\\/](bindings|file-uri-to-path)[\\/]/.test(f))).toEqual([]);
  });
});
