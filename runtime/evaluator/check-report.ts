import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The environment variable naming the directory where the check's Python processes report. */
export const CHECK_REPORT_ENV = 'METIS_CHECK_REPORT_DIR';

/** Set only in the check command's own environment: the Python process that finds it is the check's main one. */
export const CHECK_MAIN_ENV = 'METIS_CHECK_MAIN';

/**
 * `sitecustomize.py` for checks, put first on PYTHONPATH from a directory outside the workspace.
 * In every Python process of the check it makes top-level standard-library imports (unittest,
 * subprocess, json …) resolve only from the interpreter's own directories, so a workspace
 * `unittest/` or `json.py` is never the one imported, and it writes that process's report: a
 * `started` file at once, then, at a normal exit, `finished` and (in the main process) how many
 * unittest tests ran and how they ended. A process that dies or `os._exit`s leaves its report
 * unfinished — subprocesses included, so a workspace script the check runs cannot fake its exit
 * status that way. The main process drops PYTHONSAFEPATH and the main marker from the environment
 * so its subprocesses keep their usual sys.path and report as subprocesses.
 */
export const PYTHON_REPORT_HOOK = String.raw`# Written by Metis bench for one check run; not part of any workload.
import importlib.machinery as _machinery
import os as _os
import sys as _sys
import sysconfig as _sysconfig


def _stdlib_dirs():
    paths = _sysconfig.get_paths()
    found = []
    zipped = _os.path.join(_os.path.dirname(paths["stdlib"]), "python%d%d.zip" % _sys.version_info[:2])
    for d in (zipped, paths["stdlib"], paths["platstdlib"], _os.path.join(paths["platstdlib"], "lib-dynload")):
        if d not in found and _os.path.exists(d):
            found.append(d)
    return found


class _StdlibFromStdlibOnly:
    """A top-level standard-library module is found in the interpreter's directories or not at all."""

    _dirs = _stdlib_dirs()

    @classmethod
    def find_spec(cls, name, path=None, target=None):
        if path is not None or name.partition(".")[0] not in _sys.stdlib_module_names:
            return None
        spec = _machinery.PathFinder.find_spec(name, cls._dirs)
        if spec is None:
            raise ModuleNotFoundError("No module named %r in the standard library" % name, name=name)
        return spec

    @classmethod
    def invalidate_caches(cls):
        pass


def _install_guard():
    at = next((i for i, f in enumerate(_sys.meta_path) if f is _machinery.PathFinder), len(_sys.meta_path))
    _sys.meta_path.insert(at, _StdlibFromStdlibOnly)


def _install_report(report_dir, main):
    import atexit
    import json
    from unittest.main import TestProgram
    from unittest.result import TestResult

    path = _os.path.join(report_dir, "%d-%s.json" % (_os.getpid(), _os.urandom(4).hex()))
    state = {"version": 1, "role": "main" if main else "sub", "finished": False, "unittest": False, "tests_run": 0, "failures": 0,
             "errors": 0, "skipped": 0, "expected_failures": 0, "unexpected_successes": 0}

    def write():
        tmp = path + ".tmp"
        with open(tmp, "w") as f:
            json.dump(state, f)
        _os.replace(tmp, path)

    program_init = TestProgram.__init__
    def init(self, *args, **kwargs):
        state["unittest"] = True
        write()
        program_init(self, *args, **kwargs)
    TestProgram.__init__ = init

    start = TestResult.startTestRun
    def start_run(self):
        state["unittest"] = True
        start(self)
    TestResult.startTestRun = start_run

    stop = TestResult.stopTestRun
    def stop_run(self):
        stop(self)
        state["tests_run"] += self.testsRun
        state["failures"] += len(self.failures)
        state["errors"] += len(self.errors)
        state["skipped"] += len(self.skipped)
        state["expected_failures"] += len(self.expectedFailures)
        state["unexpected_successes"] += len(self.unexpectedSuccesses)
        write()
    TestResult.stopTestRun = stop_run

    def finish():
        state["finished"] = True
        write()
    atexit.register(finish)
    write()


if hasattr(_sys, "stdlib_module_names"):  # Python 3.10+; older ones get the report but no guard
    _install_guard()
_main = _os.environ.pop("${CHECK_MAIN_ENV}", None) == "1"
if _main:
    _os.environ.pop("PYTHONSAFEPATH", None)
_report_dir = _os.environ.get("${CHECK_REPORT_ENV}")
if _report_dir:
    _install_report(_report_dir, _main)
del _report_dir, _main
`;

/** What the check's own Python processes reported: counts of tests from its main processes, completion from all. */
export interface CheckReport {
  /** Python processes of the check that reported (its main ones and their Python subprocesses). */
  processes: number;
  /** Of those, how many never finished (killed, crashed, `os._exit`, or a report file that is not ours). */
  unfinished: number;
  /** Whether a main process ran unittest. */
  unittest: boolean;
  tests_run: number;
  failures: number;
  errors: number;
  skipped: number;
  unexpected_successes: number;
}

const COUNTS = ['tests_run', 'failures', 'errors', 'skipped', 'unexpected_successes'] as const;

/** Sums the report files in `dir`; null when no Python process of the check reported (a non-Python check). */
export function readCheckReports(dir: string): CheckReport | null {
  const files = readdirSync(dir).filter((f) => f.endsWith('.json'));
  if (files.length === 0) return null;
  const sum: CheckReport = { processes: files.length, unfinished: 0, unittest: false, tests_run: 0, failures: 0, errors: 0, skipped: 0, unexpected_successes: 0 };
  for (const f of files) {
    let r: Record<string, unknown>;
    try {
      r = JSON.parse(readFileSync(join(dir, f), 'utf8')) as Record<string, unknown>;
    } catch {
      sum.unfinished += 1; // not a report the hook wrote
      continue;
    }
    const counts = COUNTS.map((k) => r[k]);
    if (r.version !== 1 || (r.role !== 'main' && r.role !== 'sub') || typeof r.finished !== 'boolean' || typeof r.unittest !== 'boolean' || !counts.every((c) => Number.isInteger(c) && (c as number) >= 0)) {
      sum.unfinished += 1;
      continue;
    }
    if (!r.finished) sum.unfinished += 1;
    // A subprocess's tests are the check's material (it may expect them to fail), not its verdict.
    if (r.role !== 'main') continue;
    sum.unittest ||= r.unittest;
    COUNTS.forEach((k, i) => (sum[k] += counts[i] as number));
  }
  return sum;
}

/** The verdict on a check run: passed, or why not, in words for the report. */
export interface CheckJudgement {
  passed: boolean;
  reason: string;
}

/**
 * A check passes only when its command exited 0 in time AND, when Python ran, its own report
 * agrees: every reporting process finished, and if unittest ran, more than zero tests ran and none
 * failed, errored or unexpectedly succeeded. An exit code alone never passes a unittest check.
 */
export function judgeCheck(run: { exitCode: number | null; timedOut: boolean }, report: CheckReport | null): CheckJudgement {
  if (run.timedOut) return { passed: false, reason: 'the check timed out' };
  if (run.exitCode !== 0) return { passed: false, reason: `the check exited with ${run.exitCode === null ? 'a signal' : `code ${run.exitCode}`}` };
  if (report === null) return { passed: true, reason: 'exit code 0 (no Python report: not a Python check)' };
  if (report.unfinished > 0) return { passed: false, reason: `exit code 0, but ${report.unfinished} of ${report.processes} Python process(es) of the check exited without finishing their report (os._exit, a crash, or a forged file)` };
  if (!report.unittest) return { passed: true, reason: 'exit code 0; the Python check finished' };
  if (report.tests_run === 0) return { passed: false, reason: 'exit code 0, but the check\'s own report says no test ran' };
  const bad = report.failures + report.errors + report.unexpected_successes;
  if (bad > 0) return { passed: false, reason: `exit code 0, but the check's own report says ${report.failures} failed, ${report.errors} errored, ${report.unexpected_successes} unexpectedly succeeded of ${report.tests_run}` };
  return { passed: true, reason: `${report.tests_run} test(s) ran and passed${report.skipped ? ` (${report.skipped} skipped)` : ''}` };
}
