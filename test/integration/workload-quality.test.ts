import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import type { BenchReport } from '../../schemas/types/report.ts';
import { bench, tempDir } from '../support/cli.ts';
import { REPO_ROOT } from '../support/temp.ts';
import { competentOnly, copyWorkloads, doNothing, rewriteSim } from '../support/workload-variants.ts';
import type { SimScript } from '../../schemas/types/sim.ts';
import { parse } from 'yaml';
import { workloadKind } from '../../harness/workloads/workload-kind.ts';

// Every shipped agent workload, found on disk, so a new one is held to the same rules the day it lands.
// Matrix workloads (kind: matrix) hold recorded outcomes, not a fixture and a sim plan.
const SHIPPED = readdirSync(join(REPO_ROOT, 'workloads')).filter((n) => existsSync(join(REPO_ROOT, 'workloads', n, 'workload.yaml')) && workloadKind(join(REPO_ROOT, 'workloads', n)) === 'agent');
// The evaluator control fails for every plan by design (benchmark.md §4.1); it has its own test.
const CONTROLS = new Set(['intentionally-failing-task']);

// Workloads whose fixture ships its own test runner (benchmark.md §3: the agent runs the tests).
const hasVisibleTests = (name: string): boolean => existsSync(join(REPO_ROOT, 'workloads', name, 'workspace', 'run_tests.py'));

/** Runs one workload on the simulated provider; the report and the trace DB the run wrote. */
async function runOne(workloadsDir: string, name: string): Promise<{ report: BenchReport; db: string }> {
  const db = join(tempDir(), 'r.db');
  const r = await bench(['run', '--workloads-dir', workloadsDir, '--workload', name, '--db-path', db, '--provider', 'sim'], { env: { PATH: process.env.PATH } });
  expect(r.code, r.stderr).not.toBe(2);
  return { report: JSON.parse(readFileSync(db.replace(/\.db$/, '.json'), 'utf8')) as BenchReport, db };
}

/** The tool.completed payloads of every run_shell call that ran run_tests.py, in order. */
function visibleTestRuns(db: string): { success: boolean; command_executed: string }[] {
  const conn = new Database(db, { readonly: true });
  try {
    const rows = conn.prepare("SELECT payload_json FROM events WHERE type = 'tool.completed' ORDER BY id").all() as { payload_json: string }[];
    return rows
      .map((r) => JSON.parse(r.payload_json) as { success: boolean; command_executed: string | null })
      .filter((p): p is { success: boolean; command_executed: string } => typeof p.command_executed === 'string' && p.command_executed.includes('run_tests.py'));
  } finally {
    conn.close();
  }
}

// Spec §5: every workload's competent sim plan passes its check and a do-nothing run fails it,
// run through the real runtime (dispatcher, sandbox, hidden check mount), not a stand-in.
describe.each(SHIPPED.filter((n) => !CONTROLS.has(n)))('workload %s discriminates', (name) => {
  it('the competent plan passes the hidden check and scores high', async () => {
    const dir = copyWorkloads([name]);
    rewriteSim(dir, name, competentOnly);
    const { report, db } = await runOne(dir, name);
    const rep = report.workloads[0]!.reps[0]!;
    expect(rep.check?.passed, rep.check?.output_tail).toBe(true);
    expect(rep.failed_tool_calls).toBe(0);
    expect(rep.assertions.filter((a) => !a.passed)).toEqual([]);
    expect(rep.score).toBe(1);
    // The fixture's own tests: a competent engineer runs them, and the last run is green.
    if (hasVisibleTests(name)) {
      const runs = visibleTestRuns(db);
      expect(runs.length, 'the competent plan never runs run_tests.py').toBeGreaterThan(0);
      expect(runs.at(-1), 'the last run_tests.py of the competent plan fails').toMatchObject({ success: true });
    }
  });

  it('a do-nothing run fails the hidden check and scores below 0.75', async () => {
    const dir = copyWorkloads([name]);
    rewriteSim(dir, name, doNothing);
    const rep = (await runOne(dir, name)).report.workloads[0]!.reps[0]!;
    expect(rep.check?.passed).toBe(false);
    expect(rep.tool_calls).toBe(0);
    expect(rep.score!).toBeLessThan(0.75);
  });
});

// The fixture's own tests fail before any work (and, above, pass after the competent plan), so they
// discriminate too. The evaluator control is held to this half only: no plan makes it pass.
describe.each(SHIPPED.filter(hasVisibleTests))('workload %s ships visible tests that fail untouched', (name) => {
  it('python3 -B run_tests.py exits non-zero in a pristine copy of workspace/', () => {
    const ws = join(tempDir('bench-pristine-'), 'workspace');
    cpSync(join(REPO_ROOT, 'workloads', name, 'workspace'), ws, { recursive: true });
    const r = spawnSync('python3', ['-B', 'run_tests.py'], { cwd: ws, encoding: 'utf8', env: { PATH: process.env.PATH }, timeout: 60_000 });
    expect(r.error).toBeUndefined();
    expect(r.status, `run_tests.py passes on the untouched fixture:\n${r.stdout}`).not.toBe(0);
    expect(r.status).not.toBeNull();
  });
});

// A high-signal workload's gap rests on its mistakes: each one, played on its turn with every other
// turn competent, must leave the hidden check failing (workloads/README.md, "High-signal workloads").
const HIGH = SHIPPED.filter((n) => (parse(readFileSync(join(REPO_ROOT, 'workloads', n, 'workload.yaml'), 'utf8')) as { signal_strength?: string }).signal_strength === 'high');
const mistakesOf = (name: string): [string, number, number, string][] => {
  const sim = parse(readFileSync(join(REPO_ROOT, 'workloads', name, 'sim.yaml'), 'utf8')) as SimScript;
  return sim.turns.flatMap((t, ti) => t.plans.filter((p) => !p.competent).map((p, pi): [string, number, number, string] => [name, ti, pi, p.id]));
};

/** Turn `t` plays its mistake `k` whatever the odds; every other turn plays its competent plan. */
const playMistake =
  (t: number, k: number) =>
  (s: SimScript): SimScript => {
    const c = competentOnly(s);
    const mistake = s.turns[t]!.plans.filter((p) => !p.competent)[k]!;
    return { ...c, turns: c.turns.map((turn, i) => (i === t ? { ...turn, plans: turn.plans.map((p) => ({ ...mistake, id: p.id, competent: p.competent ?? false })) } : turn)) };
  };

describe.each(HIGH.flatMap(mistakesOf))('high-signal workload %s: turn %i mistake %i (%s)', (name, turn, k) => {
  it('fails the hidden check and scores below 0.5', async () => {
    const dir = copyWorkloads([name]);
    rewriteSim(dir, name, playMistake(turn, k));
    const rep = (await runOne(dir, name)).report.workloads[0]!.reps[0]!;
    expect(rep.check?.passed, rep.check?.output_tail).toBe(false);
    expect(rep.score!).toBeLessThan(0.5);
  });
});
