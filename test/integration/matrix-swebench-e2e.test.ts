import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { MatrixReport } from '../../schemas/types/matrix-report.ts';
import { bench, tempDir } from '../support/cli.ts';

// Issue 20 goal 2: a matrix the project has never seen, of the SWE-bench leaderboard's shape, judged with
// the same commands as the shipped ones — import, run, analyze --skip-execute, report — all through the
// CLI entry point. The data is made by hand here so every baseline has an exact expected value.

const REPOS = ['astropy/astropy', 'django/django', 'psf/requests', 'sympy/sympy'];
const N = 40;
/** Instance i: repo i / 10, slot i % 10 within it. */
const instanceId = (i: number) => `${REPOS[Math.floor(i / 10)]!.replace('/', '__')}-${1000 + i}`;
const slot = (i: number) => i % 10;

/**
 * Three complete entries. Per ten tasks of a repo:
 * - cheap ($0.10 on even tasks, $0.12 on odd) resolves slots 0, 1 and 9: 30%, $0.11 a task;
 * - mid ($0.40) resolves slots 0–5: 60%, $0.40 a task;
 * - strong ($1.00) resolves slots 0–7: 80%, $1.00 a task.
 * Slot 8 no one resolves; slot 9 only cheap does.
 */
const ENTRIES = [
  { name: 'Cheap Model', folder: '20250301_mini-swe-agent_cheap', headline: 30, resolved: (i: number) => [0, 1, 9].includes(slot(i)), cost: (i: number) => (i % 2 === 0 ? 0.1 : 0.12) },
  { name: 'Mid Model', folder: '20250302_mini-swe-agent_mid', headline: 60, resolved: (i: number) => slot(i) < 6, cost: () => 0.4 },
  { name: 'Strong Model', folder: '20250303_mini-swe-agent_strong', headline: 80, resolved: (i: number) => slot(i) < 8, cost: () => 1 },
];
const [CHEAP, MID, STRONG] = ENTRIES.map((e) => e.folder) as [string, string, string];

/** leaderboards.json (swebench.com's data/leaderboards.json shape) and the problems JSONL, in a temp dir. */
function writeData(dir: string): { leaderboards: string; problems: string } {
  const details = (resolved: (i: number) => boolean, cost: (i: number) => number) =>
    Object.fromEntries(Array.from({ length: N }, (_, i) => [instanceId(i), { resolved: resolved(i), cost: cost(i), api_calls: 10 + (i % 7) }]));
  const results = [
    ...ENTRIES.map((e) => ({ name: e.name, folder: e.folder, date: '2025-03-01', resolved: e.headline, os_model: false, per_instance_details: details(e.resolved, e.cost) })),
    // Only a headline figure: skipped, with a note.
    { name: 'Headline Only', folder: '20250304_headline_only', date: '2025-03-04', resolved: 45 },
    // Its details say it resolved everything, its headline 50%: refused, with a note.
    { name: 'Inconsistent Entry', folder: '20250305_inconsistent', date: '2025-03-05', resolved: 50, per_instance_details: details(() => true, () => 0.2) },
  ];
  const leaderboards = join(dir, 'leaderboards.json');
  writeFileSync(leaderboards, JSON.stringify({ leaderboards: [{ name: 'verified', results: [] }, { name: 'bash-only', results }] }, null, 2));
  const problems = join(dir, 'swe-bench-verified.jsonl');
  const lines = Array.from({ length: N }, (_, i) =>
    JSON.stringify({
      instance_id: instanceId(i),
      repo: REPOS[Math.floor(i / 10)],
      base_commit: `c0ffee${i}`,
      problem_statement: `${['Unit conversion', 'QuerySet.filter', 'Session redirect', 'simplify()'][Math.floor(i / 10)]} fails on case ${i}: expected the documented result but got an exception when the input is ${['empty', 'nested', 'unicode', 'negative', 'very long'][i % 5]}.`,
    }),
  );
  writeFileSync(problems, `${lines.join('\n')}\n`);
  return { leaderboards, problems };
}

describe('a SWE-bench-shaped matrix never seen before, judged with the same commands', () => {
  it('import → run → analyze --skip-execute → report: exact baselines, reproduced from the DB alone', async () => {
    const cwd = tempDir();
    const data = writeData(cwd);
    const workloads = join(cwd, 'workloads');
    mkdirSync(workloads);

    const imp = await bench(['import', 'swebench-leaderboard', '--leaderboards', data.leaderboards, '--problems', data.problems, '--out', join(workloads, 'swe-handmade')], { cwd });
    expect(imp.code, imp.stderr).toBe(0);
    expect(imp.stdout).toContain('imported 3 entries, skipped 2');
    expect(imp.stderr).toContain("note: skipped entry 'Headline Only': no per_instance_details");
    expect(imp.stderr).toMatch(/note: skipped entry 'Inconsistent Entry': per-instance resolved rate 100\.0% differs from its headline 50%/);

    const validate = await bench(['validate', join(workloads, 'swe-handmade')], { cwd });
    expect(validate.code, validate.stderr + validate.stdout).toBe(0);

    const run = await bench(
      ['run', '--workloads-dir', workloads, '--workload', 'swe-handmade', '--folds', '4', '--matrix-settings', 'unseen_tasks,new_workspace', '--cost-weights', '0,0.2', '--db-path', 'run.db', '--json', 'run.json'],
      { cwd },
    );
    expect(run.code, run.stderr).toBe(0);
    const report = JSON.parse(readFileSync(join(cwd, 'run.json'), 'utf8')) as MatrixReport;

    // Recorded USD, as the leaderboard gives it; the four repositories are the clusters.
    expect(report.provenance).toMatchObject({ tasks: 40, clusters: 4, models: [CHEAP, MID, STRONG], pricing_version: null, folds: 4, cost_weights: [0, 0.2] });
    expect(report.provenance.source.licence).toBe('CC-BY-NC-4.0');
    // UTC microseconds, as every other run's provenance (a trace run's started_at carries six fractional digits).
    expect(report.provenance.started_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    expect(report.provenance.ended_at >= report.provenance.started_at).toBe(true);
    // Single models.
    expect(report.models.map((m) => [m.model, m.cost_per_task_usd, m.solved_rate.estimate, m.on_hull])).toEqual([
      [CHEAP, '0.11', 0.3, true],
      [MID, '0.4', 0.6, true],
      [STRONG, '1', 0.8, true],
    ]);
    // The hull: all three are vertices (slopes 0.3/0.29 then 0.2/0.6, falling, so none lies under a chord).
    expect(report.hull).toEqual([
      { model: CHEAP, cost_per_task_usd: '0.11', solved_rate: 0.3 },
      { model: MID, cost_per_task_usd: '0.4', solved_rate: 0.6 },
      { model: STRONG, cost_per_task_usd: '1', solved_rate: 0.8 },
    ]);
    // The oracle, per ten tasks: cheap on slots 0, 1, 9 and on 8 (no one solves it, so the cheapest),
    // mid on 2–5, strong on 6–7: 9 solved; cost (2 × 0.10 + 2 × 0.12) + 4 × 0.40 + 2 × 1.00 = 4.04.
    expect(report.oracle.cost_per_task_usd).toBe('0.404');
    expect(report.oracle.solved_rate.estimate).toBeCloseTo(0.9, 12);
    expect(report.oracle.mix).toEqual({ [CHEAP]: 0.4, [MID]: 0.4, [STRONG]: 0.2 });
    expect(report.best_single).toEqual({ model: STRONG, cost_per_task_usd: '1', solved_rate: 0.8 });
    // Both out-of-sample settings ran at both cost weights, each interval over the 4 repositories.
    expect(report.settings.map((s) => [s.setting, s.points.length])).toEqual([
      ['unseen_tasks', 2],
      ['new_workspace', 2],
    ]);
    expect(report.settings.every((s) => s.points.every((p) => p.solved_rate.clusters === 4))).toBe(true);
    expect(report.headline).toMatch(/^On 40 tasks, out of sample by task/);
    expect(report.headline).toContain(`The cheapest single model within 1 pt of the best is ${STRONG} at $1.00 a task.`);

    // analyze --skip-execute: every figure again from the DB alone.
    const analyze = await bench(['analyze', '--skip-execute', '--db-path', 'run.db', '--json', 'analyzed.json'], { cwd });
    expect(analyze.code, analyze.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(cwd, 'analyzed.json'), 'utf8'))).toEqual(report);

    // bench report renders the run from its JSON and from its DB.
    const md = await bench(['report', 'run.json', '--format', 'md'], { cwd });
    expect(md.code, md.stderr).toBe(0);
    expect(md.stdout).toContain(report.headline);
    const fromDb = await bench(['report', 'run.db', '--format', 'json'], { cwd });
    expect(fromDb.code, fromDb.stderr).toBe(0);
    expect(JSON.parse(fromDb.stdout)).toEqual(report);
  }, 120_000);
});
