import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { createMemoryLogger } from '../core/logger.ts';
import { probeBwrap, probeUnshare, type SandboxTier } from '../sandbox/index.ts';
import { judgeCheck, readCheckReports, runCheckDetailed, type CheckReport } from './check.ts';

const hostPath = process.env.PATH ?? '';
const hasBwrap = (await probeBwrap(hostPath)) !== null;
const hasUnshare = (await probeUnshare(hostPath)) !== null;
const modes: SandboxTier[] = [...(hasBwrap ? (['bwrap'] as const) : []), ...(hasUnshare ? (['unshare'] as const) : []), 'none'];
const UNITTEST = "python3 -B -m unittest discover -s .bench-check -p 'test_*.py'";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'metis-check-test-'));
  dirs.push(root);
  for (const [rel, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, rel)), { recursive: true });
    writeFileSync(join(root, rel), content);
  }
  return root;
}

/** A hidden test in the shipped style: finds the workspace from its own path, then imports the agent's module. */
const HIDDEN = {
  'test_hidden.py': `import os, sys, unittest
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
from calc import double
import json  # imported after the workspace went on sys.path: must still be the real one

class DoubleTest(unittest.TestCase):
    def test_double(self):
        self.assertEqual(double(21), 42)
    def test_json_is_real(self):
        self.assertEqual(json.dumps([1]), "[1]")
`,
};
const SOLVED = { 'calc.py': 'def double(x):\n    return 2 * x\n' };
const UNSOLVED = { 'calc.py': 'def double(x):\n    return x\n' };

async function check(workspace: Record<string, string>, sandbox: SandboxTier, command = UNITTEST, hidden: Record<string, string> = HIDDEN) {
  const ws = tree(workspace);
  const run = await runCheckDetailed({ command, timeoutSeconds: 60, workspaceRoot: ws, checkFilesDir: tree(hidden), logger: createMemoryLogger(), hostPath, sandbox });
  return { ...run, ws };
}

describe.each(modes)('runCheck (sandbox=%s)', (mode) => {
  it('passes a solved workspace on exit 0 and its own report, and leaves the workspace untouched', async () => {
    const { result, report, ws } = await check(SOLVED, mode);
    expect(result.passed, result.output_tail).toBe(true);
    expect(result.sandbox).toBe(mode);
    expect(report).toMatchObject({ processes: 1, unfinished: 0, unittest: true, tests_run: 2, failures: 0, errors: 0 });
    expect(result.output_tail).toMatch(/\[check\] passed: 2 test\(s\) ran and passed\n$/);
    expect(readdirSync(ws)).toEqual(['calc.py']);
  });

  it('fails an unsolved workspace', async () => {
    const { result, report } = await check(UNSOLVED, mode);
    expect(result.passed).toBe(false);
    expect(result.exit_code).toBe(1);
    expect(report?.failures).toBe(1);
  });

  it('is not fooled by a workspace unittest/ package that exits 0 (the known exploit)', async () => {
    const shadow = { 'unittest/__init__.py': 'import sys\nsys.exit(0)\n', 'unittest/__main__.py': 'import sys\nsys.exit(0)\n' };
    const { result } = await check({ ...UNSOLVED, ...shadow }, mode);
    expect(result.passed, result.output_tail).toBe(false);
    expect(result.output_tail).toContain('AssertionError');
  });

  it('is not fooled by workspace sitecustomize.py / usercustomize.py / json.py', async () => {
    const exit0 = 'import os\nos._exit(0)\n';
    const { result } = await check({ ...UNSOLVED, 'sitecustomize.py': exit0, 'usercustomize.py': exit0, 'json.py': exit0 }, mode);
    expect(result.passed, result.output_tail).toBe(false);
    expect(result.exit_code).toBe(1);
  });

  it('fails when the agent\'s module ends the process with exit 0 at import: the report never finished', async () => {
    const { result, report } = await check({ 'calc.py': 'import os\nos._exit(0)\n' }, mode);
    expect(result.exit_code).toBe(0);
    expect(result.passed).toBe(false);
    expect(report?.unfinished).toBe(1);
    expect(result.output_tail).toMatch(/exited without finishing their report/);
  });

  it('fails when a workspace script the check runs in a subprocess fakes exit 0 with os._exit; a subprocess\'s own test failures do not count', async () => {
    const viaSub = {
      'test_sub.py': `import os, subprocess, sys, unittest
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

class WorkspaceTestsPass(unittest.TestCase):
    def test_runner_exits_0(self):
        self.assertEqual(subprocess.run([sys.executable, "-B", "run_tests.py"], cwd=ROOT).returncode, 0)
    def test_expected_failure_elsewhere(self):
        self.assertNotEqual(subprocess.run([sys.executable, "-B", "-m", "unittest", "failing"], cwd=ROOT).returncode, 0)
`,
    };
    const failing = { 'failing.py': 'import unittest\nclass F(unittest.TestCase):\n    def test_no(self):\n        self.fail()\n' };
    const honest = await check({ 'run_tests.py': 'import sys\nsys.exit(0)\n', ...failing }, mode, UNITTEST, viaSub);
    expect(honest.result.passed, honest.result.output_tail).toBe(true);
    expect(honest.report).toMatchObject({ processes: 3, unfinished: 0, tests_run: 2, failures: 0 });
    const faked = await check({ 'run_tests.py': 'import os\nos._exit(0)\n', ...failing }, mode, UNITTEST, viaSub);
    expect(faked.result.exit_code).toBe(0);
    expect(faked.result.passed).toBe(false);
    expect(faked.report?.unfinished).toBe(1);
  });

  it('copies no FIFO the agent made (the copy would fail or block): the check still runs and judges', async () => {
    const ws = tree(UNSOLVED);
    execFileSync('mkfifo', [join(ws, 'pipe')]);
    const run = await runCheckDetailed({ command: UNITTEST, timeoutSeconds: 60, workspaceRoot: ws, checkFilesDir: tree(HIDDEN), logger: createMemoryLogger(), hostPath, sandbox: mode });
    expect(run.result.passed).toBe(false);
    expect(run.report?.failures).toBe(1);
  });

  it('ignores a .bench-check the agent pre-created, and a __pycache__ it left', async () => {
    const fake = { '.bench-check/test_hidden.py': 'import unittest\nclass T(unittest.TestCase):\n    def test_ok(self):\n        pass\n', '__pycache__/calc.cpython-311.pyc': 'junk' };
    const { result } = await check({ ...UNSOLVED, ...fake }, mode);
    expect(result.passed).toBe(false);
  });

  it('fails a unittest run in which no test ran, though it exits 0', async () => {
    const { result } = await check(SOLVED, mode, "python3 -B -m unittest discover -s .bench-check -p 'nothing_*.py' ; exit 0");
    expect(result.passed).toBe(false);
    expect(result.output_tail).toMatch(/no test ran/);
  });

  it('judges a non-Python check by its exit code alone', async () => {
    expect((await check(SOLVED, mode, 'grep -q "2 \\* x" calc.py')).result.passed).toBe(true);
    expect((await check(UNSOLVED, mode, 'grep -q "2 \\* x" calc.py')).result.passed).toBe(false);
  });
});

describe('readCheckReports', () => {
  const good = { version: 1, role: 'main', finished: true, unittest: true, tests_run: 3, failures: 0, errors: 0, skipped: 1, expected_failures: 0, unexpected_successes: 0 };
  it('is null for no report (a non-Python check), and counts tests from main processes only', () => {
    expect(readCheckReports(tree({}))).toBeNull();
    const dir = tree({ 'a.json': JSON.stringify(good), 'b.json': JSON.stringify({ ...good, role: 'sub', failures: 5 }) });
    expect(readCheckReports(dir)).toEqual({ processes: 2, unfinished: 0, unittest: true, tests_run: 3, failures: 0, errors: 0, skipped: 1, unexpected_successes: 0 });
  });

  it('counts anything it did not write as unfinished: bad JSON, a wrong version or role, a negative or fractional count', () => {
    const bad = ['{', JSON.stringify({ ...good, version: 2 }), JSON.stringify({ ...good, role: 'agent' }), JSON.stringify({ ...good, tests_run: -1 }), JSON.stringify({ ...good, failures: 0.5 }), JSON.stringify({ ...good, finished: 'yes' })];
    const dir = tree(Object.fromEntries(bad.map((b, i) => [`${i}.json`, b])));
    expect(readCheckReports(dir)).toMatchObject({ processes: bad.length, unfinished: bad.length, tests_run: 0 });
  });
});

describe('judgeCheck', () => {
  const report = fc.record<CheckReport>({
    processes: fc.integer({ min: 1, max: 3 }),
    unfinished: fc.integer({ min: 0, max: 3 }),
    unittest: fc.boolean(),
    tests_run: fc.nat(50),
    failures: fc.nat(3),
    errors: fc.nat(3),
    skipped: fc.nat(3),
    unexpected_successes: fc.nat(2),
  });

  it('never passes without exit 0 in time, nor with an unfinished report, nor a unittest run with no test or any failure', () => {
    fc.assert(
      fc.property(fc.option(fc.integer({ min: 0, max: 3 })), fc.boolean(), fc.option(report), (exitCode, timedOut, r) => {
        const j = judgeCheck({ exitCode, timedOut }, r);
        const cleanReport = r === null || (r.unfinished === 0 && (!r.unittest || (r.tests_run > 0 && r.failures + r.errors + r.unexpected_successes === 0)));
        expect(j.passed).toBe(exitCode === 0 && !timedOut && cleanReport);
        expect(j.reason.length).toBeGreaterThan(0);
      }),
    );
  });
});

it('the staged copy is gone after the check', async () => {
  // A private TMPDIR: other processes on the machine run checks too.
  const privateTmp = mkdtempSync(join(tmpdir(), 'metis-check-test-tmp-'));
  dirs.push(privateTmp);
  const ws = tree(SOLVED);
  const hidden = tree(HIDDEN);
  const saved = process.env.TMPDIR;
  process.env.TMPDIR = privateTmp;
  try {
    const run = await runCheckDetailed({ command: UNITTEST, timeoutSeconds: 60, workspaceRoot: ws, checkFilesDir: hidden, logger: createMemoryLogger(), hostPath, sandbox: 'none' });
    expect(run.result.passed).toBe(true);
  } finally {
    if (saved === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = saved;
  }
  expect(readdirSync(privateTmp)).toEqual([]);
});
