import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Decimal } from 'decimal.js';
import { describe, expect, it } from 'vitest';
import type { BenchReport, Rep } from '../../schemas/types/report.ts';
import type { SimScript } from '../../schemas/types/sim.ts';
import { bench, tempDir } from '../support/cli.ts';
import { REPO_ROOT } from '../support/temp.ts';
import { competentOnly, copyWorkloads, rewriteSim } from '../support/workload-variants.ts';
import Database from 'better-sqlite3';
import { parse, stringify } from 'yaml';
import { main } from '../../harness/cli/main.ts';

// Issue 11: the hidden check gates the verdict, and every counter of successes counts solved reps.

const SHIPPED = readdirSync(join(REPO_ROOT, 'workloads')).filter((n) => existsSync(join(REPO_ROOT, 'workloads', n, 'workload.yaml')) && existsSync(join(REPO_ROOT, 'workloads', n, 'check')));

async function run(workloadsDir: string, name: string, extra: string[] = []): Promise<BenchReport> {
  const db = join(tempDir(), 'r.db');
  const r = await bench(['run', '--workloads-dir', workloadsDir, '--workload', name, '--db-path', db, '--provider', 'sim', '--quiet', ...extra], { env: { PATH: process.env.PATH } });
  expect(r.code, r.stderr).not.toBe(2);
  return JSON.parse(readFileSync(db.replace(/\.db$/, '.json'), 'utf8')) as BenchReport;
}

/** Turn `t` plays mistake plan `p` whatever the odds (every plan of that turn gets its steps), the other turns their competent plan. */
function playMistake(t: number, p: number): (s: SimScript) => SimScript {
  return (s) => {
    const c = competentOnly(s);
    const mistake = s.turns[t]!.plans.filter((x) => !x.competent)[p]!;
    return { ...c, turns: c.turns.map((turn, i) => (i === t ? { ...turn, plans: s.turns[t]!.plans.map((x) => ({ ...mistake, id: x.id, competent: x.competent ?? false })) } : turn)) };
  };
}

const reps = (r: BenchReport): Rep[] => r.workloads.flatMap((w) => w.reps);

/** A rep's outcome agrees with its check, and its score sits in the outcome's band. */
function expectGated(rep: Rep, where: string) {
  if (rep.check === null) {
    expect(rep.outcome, where).toMatch(/^(check_error|not_reached)$/);
  } else if (rep.check.timed_out) {
    expect(rep.outcome, where).toBe('check_error');
  } else {
    expect(rep.outcome, where).toBe(rep.check.passed ? 'solved' : 'unsolved');
  }
  expect(rep.solved, where).toBe(rep.outcome === 'solved');
  if (rep.solved) expect(rep.score!, where).toBeGreaterThanOrEqual(0.5);
  else expect(rep.score!, where).toBeLessThan(0.5);
}

/** Every counter of successes in the report equals the number of solved reps it lists. */
function expectCountersAreSolved(report: BenchReport) {
  const all = reps(report);
  const solved = all.filter((r) => r.solved);
  expect(report.aggregate.successful_runs).toBe(solved.length);
  expect(report.aggregate.solved_runs).toBe(solved.length);
  expect(report.aggregate.solved_rate).toBeCloseTo(solved.length / all.length, 12);
  expect(report.aggregate.outcomes.solved).toBe(solved.length);
  // Savings on successful work is exactly the solved reps' spend.
  const actual = Decimal.sum(0, ...solved.map((r) => r.savings.actual_repriced_usd));
  expect(new Decimal(report.aggregate.savings_on_successful_work.actual_repriced_usd).equals(actual)).toBe(true);
  for (const w of report.workloads) {
    const s = w.reps.filter((r) => r.solved).length;
    expect(w.solved).toBe(s);
    expect(w.solved_rate).toBeCloseTo(s / w.reps.length, 12);
    // pass^k is 1 only when every rep was solved; pass@k is 0 only when none was.
    expect(w.pass_hat_k === 1).toBe(s === w.reps.length);
    expect(w.pass_at_k === 0).toBe(s === 0);
  }
  for (const p of report.protocol_metrics?.passes ?? []) {
    const s = report.workloads.filter((w) => w.pass === p.pass).reduce((a, w) => a + w.solved, 0);
    expect(p.solved).toBe(s);
  }
  for (const r of all) expectGated(r, `rep ${r.rep}`);
}

describe('the check gates the verdict on every mistake plan of every shipped workload', () => {
  const cases = SHIPPED.flatMap((name) => {
    const sim = parse(readFileSync(join(REPO_ROOT, 'workloads', name, 'sim.yaml'), 'utf8')) as SimScript;
    return sim.turns.flatMap((turn, t) => turn.plans.filter((p) => !p.competent).map((plan, p) => [name, t, p, plan.id] as const));
  });
  it.each(cases)('%s, turn %i, mistake %i (%s): a failed check scores < 0.5, a passed one >= 0.5', async (name, t, p) => {
    const dir = copyWorkloads([name]);
    rewriteSim(dir, name, playMistake(t, p));
    const report = await run(dir, name);
    for (const r of reps(report)) expectGated(r, `${name} turn ${t} mistake ${p}`);
    expectCountersAreSolved(report);
  }, 120_000);
});

describe('every counter of successes equals the number of solved reps', () => {
  // fix-a-bug-small's fix-turn mistakes keep the visible signals high and fail the hidden check (its sim.yaml
  // says so); at difficulty 0.7 the cheap model mostly makes them and the strong one mostly does not.
  const hard = (s: SimScript): SimScript => ({ ...s, turns: s.turns.map((t) => ({ ...t, difficulty: 0.7 })) });

  it('--protocol single, 4 seed passes; the turn verdicts the pattern store folds in are gated too', async () => {
    const dir = copyWorkloads(['fix-a-bug-small']);
    rewriteSim(dir, 'fix-a-bug-small', hard);
    const db = join(tempDir(), 'r.db');
    const r = await bench(['run', '--workloads-dir', dir, '--workload', 'fix-a-bug-small', '--db-path', db, '--provider', 'sim', '--quiet', '--seed-passes', '4'], { env: { PATH: process.env.PATH } });
    expect(r.code, r.stderr).not.toBe(2);
    const report = JSON.parse(readFileSync(db.replace(/\.db$/, '.json'), 'utf8')) as BenchReport;
    expect(reps(report).some((x) => x.outcome === 'unsolved')).toBe(true);
    expectCountersAreSolved(report);
    expect(report.headline?.kind).toBe('actual_vs_repriced_baseline');
    // Every turn of a rep gets the rep's check signal: the learning loop's success_score (the turn verdict,
    // pattern-store.md §10.4) is below 0.5 for every turn of an unsolved rep and at least 0.5 for a solved one.
    const conn = new Database(db, { readonly: true });
    try {
      const turnScores = (session: string) =>
        (conn.prepare("SELECT payload_json FROM events WHERE type = 'eval.completed' AND session_id = ?").all(session) as { payload_json: string }[])
          .map((e) => JSON.parse(e.payload_json) as { subject_kind: string; score: number })
          .filter((e) => e.subject_kind === 'turn')
          .map((e) => e.score);
      for (const rep of reps(report)) {
        const scores = turnScores(rep.session_ids[0]!);
        expect(scores.length).toBe(rep.turns);
        for (const sc of scores) {
          if (rep.solved) expect(sc).toBeGreaterThanOrEqual(0.5);
          else expect(sc).toBeLessThan(0.5);
        }
      }
    } finally {
      conn.close();
    }
  }, 120_000);

  it('--protocol a3, 3 seed passes: per pass too, and the headline pairs B and C', async () => {
    const dir = copyWorkloads(['fix-a-bug-small', 'regex-with-edge-cases']);
    for (const n of ['fix-a-bug-small', 'regex-with-edge-cases']) rewriteSim(dir, n, hard);
    const db = join(tempDir(), 'a3.db');
    const r = await bench(['run', '--workloads-dir', dir, '--workload', 'fix-a-bug-small', '--workload', 'regex-with-edge-cases', '--protocol', 'a3', '--seed-passes', '3', '--db-path', db, '--provider', 'sim', '--quiet'], { env: { PATH: process.env.PATH } });
    expect(r.code, r.stderr).not.toBe(2);
    const report = JSON.parse(readFileSync(db.replace(/\.db$/, '.json'), 'utf8')) as BenchReport;
    const all = reps(report);
    expect(all.some((x) => x.outcome === 'unsolved')).toBe(true);
    expect(all.some((x) => x.outcome === 'solved')).toBe(true);
    expectCountersAreSolved(report);
    const h = report.headline!;
    expect(h).toMatchObject({ kind: 'routed_vs_measured_strong', routed_pass: 'C', strong_pass: 'B', units: 6, clusters: 2, unmatched_units: 0 });
    const solvedIn = (pass: string) => report.workloads.filter((w) => w.pass === pass).reduce((a, w) => a + w.solved, 0) / 6;
    expect(h.solved_rate.routed.estimate).toBeCloseTo(solvedIn('C'), 12);
    expect(h.solved_rate.strong!.estimate).toBeCloseTo(solvedIn('B'), 12);
    expect(h.solved_rate_diff_pts!.estimate).toBeCloseTo(100 * (solvedIn('C') - solvedIn('B')), 9);
    expect(h.verdict).toMatch(/^routing \(Pass C\) vs always-claude-sonnet-4-6 \(Pass B, measured\)/);
    expect(r.stdout).toContain('=== Headline ===');
  }, 300_000);
});

describe('a check that could not run, and a rep that never reached its check, are their own states and never a pass', () => {
  it('a check that times out is check_error and scores in the unsolved band, even when the work was right', async () => {
    const dir = copyWorkloads(['fix-a-bug-small']);
    rewriteSim(dir, 'fix-a-bug-small', competentOnly);
    const file = join(dir, 'fix-a-bug-small', 'workload.yaml');
    const spec = parse(readFileSync(file, 'utf8')) as { evaluate: { check: { command: string; timeout_seconds: number } } };
    spec.evaluate.check = { command: 'sleep 30', timeout_seconds: 0.5 };
    writeFileSync(file, stringify(spec, { lineWidth: 0 }));
    const report = await run(dir, 'fix-a-bug-small');
    const rep = reps(report)[0]!;
    expect(rep.check?.timed_out).toBe(true);
    expect(rep).toMatchObject({ outcome: 'check_error', solved: false });
    expect(rep.score!).toBeLessThan(0.5);
    expect(report.workloads[0]).toMatchObject({ solved: 0, outcomes: { check_error: 1 } });
    expect(report.aggregate).toMatchObject({ successful_runs: 0, solved_runs: 0 });
  }, 120_000);

  it('an interrupted rep is not_reached and scores in the unsolved band', async () => {
    const controller = new AbortController();
    controller.abort();
    const db = join(tempDir(), 'int.db');
    const code = await main(['run', '--workload', 'fix-a-bug-small', '--db-path', db, '--provider', 'sim', '--quiet'], {
      out: () => {},
      err: () => {},
      isTTY: false,
      progress: () => {},
      env: { PATH: process.env.PATH },
      cwd: REPO_ROOT,
      interrupt: controller.signal,
    });
    expect(code).toBe(1);
    const report = JSON.parse(readFileSync(db.replace(/\.db$/, '.json'), 'utf8')) as BenchReport;
    for (const rep of reps(report)) {
      expect(rep).toMatchObject({ outcome: 'not_reached', solved: false, check: null });
      expect(rep.score!).toBeLessThan(0.5);
    }
    expect(report.aggregate.outcomes.not_reached).toBe(reps(report).length);
    expect(report.aggregate.successful_runs).toBe(0);
  }, 120_000);
});

