import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
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
interface Workflow {
  on: Record<string, unknown>;
  jobs: Record<string, { 'runs-on': string; steps: Step[] }>;
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

/** Every `npx bench ...` invocation in a workflow, as argv (up to a pipe, redirect, `)` or quote). */
function benchInvocations(ss: Step[]): string[][] {
  return ss.flatMap((s) => [...(s.run ?? '').matchAll(/npx bench ([^|;&>)"\n]*)/g)].map((m) => m[1]!.trim().split(/\s+/)));
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

describe('ci.yml', () => {
  const ci = workflow('ci.yml');
  it('runs on push and pull_request and runs the README test command', () => {
    expect(Object.keys(ci.on)).toEqual(expect.arrayContaining(['push', 'pull_request']));
    expect(runsCommand(steps(ci), TEST)).toBe(true);
  });
});

describe('nightly.yml', () => {
  const nightly = workflow('nightly.yml');
  const all = steps(nightly);
  const runStep = all.find((s) => /npx bench run /.test(s.run ?? ''))!;

  it('runs on a schedule and by hand, on ubuntu with Node 20 and bubblewrap, installing with the README command', () => {
    expect(nightly.on.schedule).toEqual([{ cron: expect.stringMatching(/^\S+ \S+ \* \* \*$/) }]);
    expect(Object.keys(nightly.on)).toContain('workflow_dispatch');
    expect(Object.values(nightly.jobs)[0]!['runs-on']).toBe('ubuntu-latest');
    expect(all.find((s) => s.uses?.startsWith('actions/setup-node'))?.with?.['node-version']).toBe(20);
    expect(all.some((s) => /apt-get install -y bubblewrap/.test(s.run ?? ''))).toBe(true);
    expect(runsCommand(all, INSTALL)).toBe(true);
  });

  it('runs the A3 protocol with 3 seed passes and both provider keys from secrets', () => {
    expect(runStep).toBeDefined();
    const argv = benchInvocations([runStep])[0]!;
    expect(argv.slice(0, 5)).toEqual(['run', '--protocol', 'a3', '--seed-passes', '3']);
    expect(runStep.env).toMatchObject({
      ANTHROPIC_API_KEY: '${{ secrets.ANTHROPIC_API_KEY }}',
      OPENAI_API_KEY: '${{ secrets.OPENAI_API_KEY }}',
    });
  });

  it('reports to the step summary and uploads DB and JSON in steps that always run', () => {
    const summary = all.filter((s) => /bench report .*--format md.*>> "\$GITHUB_STEP_SUMMARY"/.test(s.run ?? ''));
    expect(summary).toHaveLength(1);
    expect(summary[0]!.if).toContain('always()');
    const upload = all.find((s) => s.uses?.startsWith('actions/upload-artifact'))!;
    expect(upload.if).toContain('always()');
    expect(String(upload.with?.path)).toMatch(/nightly\.db/);
    expect(String(upload.with?.path)).toMatch(/nightly\.json/);
    // upload-artifact skips dot-folders like reports/.runs unless told otherwise.
    expect(upload.with?.['include-hidden-files']).toBe(true);
    // Every step after the run must run even when an earlier one failed, or the history is lost.
    for (const s of all.slice(all.indexOf(runStep) + 1)) expect(s.if, s.name).toContain('always()');
  });

  it('records the run exit code and fails the job with it after the always-steps', () => {
    expect(runStep.id).toBeTruthy();
    const last = all.at(-1)!;
    expect(last.if).toContain('always()');
    expect(last.run).toContain(`steps.${runStep.id}.outputs.exit_code`);

    // Execute the two scripts with a stand-in `npx` to see the code travel from one to the other.
    const dir = tempDir();
    mkdirSync(join(dir, 'bin'));
    const output = join(dir, 'github_output');
    const sh = (script: string, env: Record<string, string>) => spawnSync('bash', ['-e', '-c', script], { cwd: dir, env: { PATH: `${join(dir, 'bin')}:${process.env.PATH}`, ...env }, encoding: 'utf8' });
    for (const code of [0, 1, 2]) {
      writeFileSync(join(dir, 'bin', 'npx'), `#!/bin/sh\nexit ${code}\n`);
      chmodSync(join(dir, 'bin', 'npx'), 0o755);
      writeFileSync(output, '');
      const run = sh(runStep.run!, { GITHUB_OUTPUT: output });
      expect(run.status, run.stderr).toBe(0); // the run step itself never fails: the always-steps come first
      const recorded = /exit_code=(\d+)/.exec(readFileSync(output, 'utf8'))![1]!;
      expect(recorded).toBe(String(code));
      const fail = sh(last.run!.replace(/\$\{\{\s*steps\.\w+\.outputs\.exit_code\s*\}\}/g, recorded), {});
      expect(fail.status).toBe(code);
    }
    // A run step that never finished leaves no code: the job still fails.
    expect(sh(last.run!.replace(/\$\{\{\s*steps\.\w+\.outputs\.exit_code\s*\}\}/g, ''), {}).status).toBe(2);
  });
});

describe('every `npx bench` command line in the workflows parses with the real CLI', () => {
  const invocations = [...benchInvocations(steps(workflow('ci.yml'))), ...benchInvocations(steps(workflow('nightly.yml')))];

  it('uses run, report and compare at least', () => {
    expect(invocations.map((a) => a[0])).toEqual(expect.arrayContaining(['run', 'report', 'compare']));
  });

  it.each(invocations.map((a) => [a.join(' '), a] as const))('bench %s', async (_label, argv) => {
    const r = await bench([...argv, '--help'], { env: { PATH: process.env.PATH } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`Usage: bench ${argv[0]} `);
    for (const flag of argv.filter((a) => a.startsWith('--'))) expect(r.stdout, flag).toMatch(new RegExp(`(^|\\s)${flag}[\\s,]`, 'm'));
  });
});
