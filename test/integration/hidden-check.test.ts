import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { probeBwrap, probeUnshare, type SandboxTier } from '../../runtime/sandbox/index.ts';
import type { BenchReport } from '../../schemas/types/report.ts';
import { bench, REPO_ROOT, tempDir } from '../support/cli.ts';

const hasBwrap = (await probeBwrap(process.env.PATH)) !== null;
const hasUnshare = (await probeUnshare(process.env.PATH)) !== null;
// Each sandbox the harness can use here; `unshare` and `none` are forced at the edge with METIS_SANDBOX, as on a machine without bwrap.
const modes: SandboxTier[] = [...(hasBwrap ? (['bwrap'] as const) : []), ...(hasUnshare ? (['unshare'] as const) : []), 'none'];
const envFor = (mode: SandboxTier) => ({ PATH: process.env.PATH, ...(mode !== 'bwrap' ? { METIS_SANDBOX: mode } : {}) });

// Outside /tmp on purpose: under bwrap /tmp is private anyway, so a probe of /tmp would prove nothing.
const varTmp = mkdtempSync('/var/tmp/metis-hidden-check-');
afterAll(() => rmSync(varTmp, { recursive: true, force: true }));

/** A sim plan with one step of tool calls, as YAML; `competent` plans and a second id keep the schema happy. */
function oneStepSim(calls: string): string {
  const plan = (id: string, competent: boolean) => `      - id: ${id}
        competent: ${competent}
        steps:
          - tool_calls:
${calls}
        final: "Done."
`;
  return `version: 1\nturns:\n  - difficulty: 0.1\n    plans:\n${plan('probe', true)}${plan('probe-again', false)}`;
}

/** A one-turn workload in a fresh workloads dir under /var/tmp. */
function workload(name: string, checkCommand: string, sim: string, files: Record<string, string> = { 'app.txt': 'hello\n' }, check: Record<string, string> = {}): { dir: string; w: string } {
  const dir = mkdtempSync(join(varTmp, 'workloads-'));
  const w = join(dir, name);
  mkdirSync(join(w, 'workspace'), { recursive: true });
  mkdirSync(join(w, 'check'), { recursive: true });
  for (const [rel, content] of Object.entries(files)) writeFileSync(join(w, 'workspace', rel), content);
  for (const [rel, content] of Object.entries(check)) writeFileSync(join(w, 'check', rel), content);
  writeFileSync(
    join(w, 'workload.yaml'),
    `name: ${name}\ndescription: a probe\nsuite_version: 1\nsignal_strength: marginal\nturns:\n  - prompt: "look around"\nevaluate:\n  check:\n    command: ${JSON.stringify(checkCommand)}\n    timeout_seconds: 60\n`,
  );
  writeFileSync(join(w, 'sim.yaml'), sim);
  return { dir, w };
}

function reportOf(db: string): BenchReport['workloads'][number]['reps'][number] {
  return (JSON.parse(readFileSync(db.replace(/\.db$/, '.json'), 'utf8')) as BenchReport).workloads[0]!.reps[0]!;
}

describe.each(modes)('hidden check files (spec §5), sandbox=%s', (mode) => {
  it('the agent cannot see check/ during the turns; the check sees it afterwards', { timeout: 120_000 }, async () => {
    const dir0 = mkdtempSync(join(varTmp, 'peek-'));
    const secretFile = join(dir0, 'peek', 'check', 'test_secret.txt');
    const peek = [
      'ls -aR . > listing.txt',
      'ls -a .bench-check >> listing.txt 2>/dev/null',
      'ls -a ../check >> listing.txt 2>/dev/null',
      'cat .bench-check/* ../check/* > seen.txt 2>&1',
      // With no sandbox an absolute path to the workloads folder is readable (docs/threat-model.md); under bwrap or unshare, nothing is there.
      ...(mode !== 'none' ? [`cat ${secretFile} >> seen.txt 2>&1`, `ls ${join(dir0, 'peek', 'check')} >> listing.txt 2>/dev/null`] : []),
      'true',
    ].join('; ');
    const sim = oneStepSim(`              - tool: run_shell
                input: { command: ${JSON.stringify(peek)} }
              - tool: read_file
                input: { path: ../check/test_secret.txt }
              - tool: read_file
                input: { path: .bench-check/test_secret.txt }
`);
    const { dir } = workload('peek', 'grep -q SECRET_MARKER .bench-check/test_secret.txt && ! grep -q SECRET_MARKER seen.txt && ! grep -q test_secret listing.txt', sim, undefined, { 'test_secret.txt': 'SECRET_MARKER\n' });
    rmSync(dir0, { recursive: true, force: true });
    const db = join(tempDir(), 'peek.db');
    const r = await bench(['run', '--workloads-dir', dir, '--workload', 'peek', '--db-path', db], { env: envFor(mode) });
    expect(r.code, r.stderr).not.toBe(2);
    const rep = reportOf(db);
    expect(rep.check?.sandbox).toBe(mode);
    expect(rep.check?.passed, rep.check?.output_tail).toBe(true);
    // Both read_file attempts failed: one leaves the workspace, the other does not exist yet.
    expect(rep.failed_tool_calls).toBe(2);
  });

  it('run_shell cannot read the harness\'s API key, the user\'s home or the hidden check (bench run as its own process)', { timeout: 120_000 }, async () => {
    const home = join(varTmp, `home-${mode}`);
    mkdirSync(home, { recursive: true });
    writeFileSync(join(home, 'secret.txt'), 'HOME_SECRET_MARKER\n');
    const direct = `{ env; tr '\\0' '\\n' < /proc/$PPID/environ; tr '\\0' ' ' < /proc/$PPID/cmdline; cat "$HOME/secret.txt"; } > direct.txt 2>&1; ls -A ${REPO_ROOT} 2>/dev/null | wc -l > cwd.txt`;
    // Walks up to the harness and scans every process: only a sandbox's own pid namespace and covers (bwrap, unshare) stop these.
    const deep = `{ pp=$(cut -d' ' -f4 /proc/$PPID/stat); tr '\\0' '\\n' < /proc/$pp/environ; cat /proc/*/environ | tr '\\0' '\\n'; cat ${join(home, 'secret.txt')}; cat ${varTmp}/workloads-*/probe/check/*; } > deep.txt 2>&1`;
    // Two calls: the launcher's cmdline holds its own command, and the deep one names the workloads folder.
    const sim = oneStepSim(`              - tool: run_shell
                input: { command: ${JSON.stringify(`${direct}; true`)} }
              - tool: run_shell
                input: { command: ${JSON.stringify(`${deep}; true`)} }
`);
    const markers = '-e sk-secret-xyz -e HOME_SECRET_MARKER -e CHECK_SECRET_MARKER';
    const { dir } = workload('probe', `echo "CWD=$(cat cwd.txt) DIRECT=$(grep -c ${markers} direct.txt) DEEP=$(grep -c ${markers} deep.txt)"`, sim, undefined, { 'hidden.txt': 'CHECK_SECRET_MARKER\n' });
    const db = join(tempDir(), 'probe.db');
    const child = spawn(process.execPath, [join(REPO_ROOT, 'bin/bench.mjs'), 'run', '--workloads-dir', dir, '--workload', 'probe', '--db-path', db, '--provider', 'sim', '--quiet'], {
      cwd: REPO_ROOT,
      env: { ...envFor(mode), HOME: home, ANTHROPIC_API_KEY: 'sk-secret-xyz' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.stdout.resume();
    const code = await new Promise<number | null>((res) => child.on('close', res));
    expect(code, stderr).not.toBe(2);
    const tail = reportOf(db).check!.output_tail;
    expect(tail).toMatch(/DIRECT=0 /);
    // With no sandbox, a process of the same user can read another's /proc/<pid>/environ and any absolute path: refused on real providers unless --unsandboxed.
    if (mode !== 'none') expect(tail).toMatch(/DEEP=0\n/);
    else expect(tail).not.toMatch(/DEEP=0\n/);
    // The directory bench ran from (here the repo: a checkout's .env would be there) is empty or absent in a sandbox.
    if (mode !== 'none') expect(tail).toMatch(/CWD=0 /);
    else expect(tail).not.toMatch(/CWD=0 /);
  });

  it.skipIf(mode === 'none')('the check cannot read another workload\'s check/ files by absolute path', { timeout: 120_000 }, async () => {
    // In the repo's ignored test-output/, not under /tmp or /var/tmp: those are covered anyway, so only the run's own hiding of the workloads folder stops this.
    mkdirSync(join(REPO_ROOT, 'test-output'), { recursive: true });
    const dir = mkdtempSync(join(REPO_ROOT, 'test-output', 'metis-other-check-'));
    try {
      const other = join(dir, 'other', 'check', 'answers.txt');
      mkdirSync(dirname(other), { recursive: true });
      writeFileSync(other, 'OTHER_CHECK_MARKER\n');
      const w = join(dir, 'peeker');
      mkdirSync(join(w, 'workspace'), { recursive: true });
      mkdirSync(join(w, 'check'), { recursive: true });
      writeFileSync(join(w, 'workspace', 'app.txt'), 'hello\n');
      writeFileSync(join(w, 'check', 'ok.txt'), 'ok\n');
      writeFileSync(
        join(w, 'workload.yaml'),
        `name: peeker\ndescription: a probe\nsuite_version: 1\nsignal_strength: marginal\nturns:\n  - prompt: "look around"\nevaluate:\n  check:\n    command: ${JSON.stringify(`cat ${other} 2>&1; echo LISTED=$(ls -A ${dir} 2>/dev/null | wc -l); test -f .bench-check/ok.txt`)}\n    timeout_seconds: 60\n`,
      );
      writeFileSync(join(w, 'sim.yaml'), oneStepSim(`              - tool: list_files\n                input: { path: . }\n`));
      const db = join(tempDir(), 'peeker.db');
      const r = await bench(['run', '--workloads-dir', dir, '--workload', 'peeker', '--db-path', db], { env: envFor(mode) });
      expect(r.code, r.stderr).not.toBe(2);
      const check = reportOf(db).check!;
      expect(check.sandbox).toBe(mode);
      expect(check.output_tail).not.toContain('OTHER_CHECK_MARKER');
      expect(check.output_tail).toMatch(/LISTED=0\n/); // the workloads folder is empty or absent
      expect(check.passed, check.output_tail).toBe(true); // its own check files are there
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the known exploit fails: a workspace unittest/ package that exits 0 does not pass fix-a-bug-small', { timeout: 120_000 }, async () => {
    const dir = mkdtempSync(join(varTmp, 'exploit-'));
    const { cpSync } = await import('node:fs');
    cpSync(join(REPO_ROOT, 'workloads', 'fix-a-bug-small'), join(dir, 'fix-a-bug-small'), { recursive: true });
    const exit0 = JSON.stringify('import sys\nsys.exit(0)\n');
    const plan = (id: string, competent: boolean) => `      - id: ${id}
        competent: ${competent}
        steps:
          - tool_calls:
              - tool: write_file
                input: { path: unittest/__init__.py, content: ${exit0} }
              - tool: write_file
                input: { path: unittest/__main__.py, content: ${exit0} }
        final: "Fixed; all tests pass."
`;
    const turn = `  - difficulty: 0.1\n    plans:\n${plan('cheat', true)}${plan('cheat-too', false)}`;
    writeFileSync(join(dir, 'fix-a-bug-small', 'sim.yaml'), `version: 1\nturns:\n${turn}${turn.replace(/cheat/g, 'cheat2')}${turn.replace(/cheat/g, 'cheat3')}`);
    const db = join(tempDir(), 'exploit.db');
    const r = await bench(['run', '--workloads-dir', dir, '--workload', 'fix-a-bug-small', '--db-path', db], { env: envFor(mode) });
    expect(r.code, r.stderr).not.toBe(2);
    const rep = reportOf(db);
    expect(rep.check?.passed, rep.check?.output_tail).toBe(false);
    expect(rep.score!).toBeLessThan(0.5);
  });
});
