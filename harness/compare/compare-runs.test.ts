import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Decimal } from 'decimal.js';
import { describe, expect, it } from 'vitest';
import type { BenchReport } from '../../schemas/types/report.ts';
import type { MultiRun } from '../../schemas/types/multi-run.ts';
import type { CompareArtifact, CompareRow } from '../../schemas/types/compare.ts';
import { bench } from '../../test/support/cli.ts';
import { REPO_ROOT, tempDir } from '../../test/support/temp.ts';
import { studentTQuantile } from '../metrics/student-t.ts';
import { maxLineWidth } from '../report/fit-table.ts';
import { loadReport } from '../report/find-report.ts';
import { compareReports } from './compare-reports.ts';
import { compareRuns, loadRunsSummary, pairSeeds } from './compare-runs.ts';
import { renderCompareTable } from './render-compare.ts';

const fixture = (): BenchReport => structuredClone(loadReport(join(REPO_ROOT, 'test/fixtures/reports/a3.json')).report);

// Hand-made runs with a known between-run variance: in seed s, arm B spends δ_s more than arm A on every
// rep of Pass C and nothing else differs. Within a seed the difference is the same on every unit (no
// within-run variance at all: one pair alone says "no variation"); across seeds it moves by δ_s, so the
// two-level interval of Pass C's cost difference is exactly mean ± t(R − 1) · sd/√R of the per-seed totals.
const DELTA: Record<number, number> = { 0: 0.001, 1: 0.002, 2: 0.006 };

function runReport(seed: number, shift: number): BenchReport {
  const r = fixture();
  r.provenance.seed = seed;
  r.provenance.run_id = `run-${seed}-${shift}`;
  const plus = (x: string, by: number) => new Decimal(x).plus(by).toString();
  for (const w of r.workloads.filter((x) => x.pass === 'C')) for (const rep of w.reps) rep.savings.actual_repriced_usd = plus(rep.savings.actual_repriced_usd, shift);
  // The pass and run totals the A and B columns show move with the reps (6 reps of Pass C).
  const c = r.protocol_metrics!.passes.find((p) => p.pass === 'C')!;
  c.actual_cost_usd = plus(c.actual_cost_usd, 6 * shift);
  r.aggregate.savings.actual_repriced_usd = plus(r.aggregate.savings.actual_repriced_usd, 6 * shift);
  return r;
}

/** Writes one side's runs (a report JSON per seed) and its <base>.runs.json summary; returns the summary path. */
function writeRuns(dir: string, name: string, seeds: readonly number[], shift: (seed: number) => number): string {
  const runs = seeds.map((seed) => {
    const jsonPath = join(dir, `${name}.seed-${seed}.json`);
    writeFileSync(jsonPath, JSON.stringify(runReport(seed, shift(seed))));
    return { seed, run_id: `run-${seed}`, json_path: jsonPath, db_path: join(dir, `${name}.seed-${seed}.db`), exit_code: 0 };
  });
  const summary: MultiRun = { multi_run_version: 1, protocol: 'a3', seed_passes: 2, runs, headline: null };
  const path = join(dir, `${name}.runs.json`);
  writeFileSync(path, JSON.stringify(summary));
  return path;
}

const row = (a: CompareArtifact, metric: string, scope: string): CompareRow => a.rows.find((r) => r.metric === metric && r.scope === scope)!;

describe('bench compare on two multi-run summaries (issue 23 item 4)', () => {
  const setup = (seedsB: readonly number[] = [0, 1, 2]) => {
    const dir = tempDir();
    return { dir, a: writeRuns(dir, 'a', [0, 1, 2], () => 0), b: writeRuns(dir, 'b', seedsB, (s) => DELTA[s] ?? 0) };
  };

  it('pairs runs by seed and gives each metric the two-level interval: the known between-run spread, not the zero within-run one', () => {
    const { a, b } = setup();
    const artifact = compareRuns(loadRunsSummary(a, 'a'), loadRunsSummary(b, 'b'));
    const totals = [0, 1, 2].map((s) => 6 * DELTA[s]!); // 6 reps of Pass C per run
    const mean = totals.reduce((x, y) => x + y, 0) / 3;
    const sd = Math.sqrt(totals.reduce((x, y) => x + (y - mean) ** 2, 0) / 2);
    const half = studentTQuantile(0.975, 2) * (sd / Math.sqrt(3));
    const cost = row(artifact, 'actual_cost_usd', 'pass C');
    expect(cost.ci!.low).toBeCloseTo(mean - half, 10);
    expect(cost.ci!.high).toBeCloseTo(mean + half, 10);
    expect(cost.ci!.two_level).toMatchObject({ runs: 3 });
    expect(cost.ci!.two_level!.df).toBeCloseTo(2, 6);
    expect(cost.ci!.two_level!.within_se!).toBeCloseTo(0, 12);
    expect(cost.ci!.two_level!.between_se!).toBeCloseTo(sd / Math.sqrt(3), 10);
    expect(cost.ci!.units).toBe(18);
    // The columns are the means over runs, so the delta is the combined figure.
    expect(Number(cost.delta)).toBeCloseTo(mean, 12);
    expect(artifact.runs).toMatchObject({ paired: 3, seeds: [0, 1, 2], a_summary: a, b_summary: b });
    // Pass A and B are the same in both arms in every seed: no variation at either level.
    expect(row(artifact, 'actual_cost_usd', 'pass A').ci).toMatchObject({ low: 0, high: 0 });
    // One pair alone cannot see the runs' spread: its interval is a single point.
    const one = compareReports(loadRunsSummary(a, 'a').reports.get(2)!, loadRunsSummary(b, 'b').reports.get(2)!);
    expect(row(one, 'actual_cost_usd', 'pass C').ci!.high - row(one, 'actual_cost_usd', 'pass C').ci!.low).toBeCloseTo(0, 12);
  });

  it('states savings in the verdict grammar on the combined interval, and says how many runs were paired and that the interval includes between-run variance', () => {
    const { a, b } = setup();
    const artifact = compareRuns(loadRunsSummary(a, 'a'), loadRunsSummary(b, 'b'));
    const text = renderCompareTable(artifact, { json: null, width: 100 });
    expect(text).toContain('runs: 3 paired by seed (seeds 0, 1, 2)');
    expect(text).toMatch(/includes the between-run\s+variance/);
    expect(text).toContain('95% CI (paired, across runs)');
    // B spent more in Pass C in every seed, but by how much varies across seeds: the combined interval holds 0.
    const c = artifact.claims!.find((x) => x.figure === 'savings_pct' && x.scope === 'pass C')!;
    expect(c.ci_low!).toBeLessThan(0);
    expect(c.text).toMatch(/^cost \(pass C\), B against A: (no saving shown|cost more) \(/);
    // Every seed solved the same units under both arms: a zero-width interval, so no claim (not "non-inferior").
    expect(artifact.claims!.find((x) => x.figure === 'solved_rate_diff_pts')!.text).toBe('solved rate (pass C), B against A: no variation: no claim (0 pts, an interval of zero width from 18 paired units; margin 5 pts).');
    for (let width = 60; width <= 160; width += 9) expect(maxLineWidth(renderCompareTable(artifact, { json: '/tmp/some/long/path/compare.json', width }))).toBeLessThanOrEqual(width);
  });

  it('refuses seed sets that differ, naming the unmatched seeds on each side', () => {
    const { a, b } = setup([0, 1, 5]);
    expect(() => pairSeeds(loadRunsSummary(a, 'a'), loadRunsSummary(b, 'b'))).toThrow(/seed\(s\) 2 only in .*a\.runs\.json; seed\(s\) 5 only in .*b\.runs\.json/);
  });

  it('bench compare a.runs.json b.runs.json: exit 0 with the combined table; exit 2 on different seeds, a summary against a report, or a broken run path', async () => {
    const { dir, a, b } = setup();
    const ok = await bench(['compare', a, b, '--width', '120'], { cwd: dir });
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toContain('runs: 3 paired by seed');
    expect(ok.stdout).toMatch(/actual_cost_usd \(pass C\)/);

    const other = writeRuns(dir, 'c', [0, 1, 7], () => 0);
    const bad = await bench(['compare', a, other], { cwd: dir });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/seed\(s\) 2 only in .*a\.runs\.json; seed\(s\) 7 only in .*c\.runs\.json/);

    const mixed = await bench(['compare', a, join(dir, 'b.seed-0.json')], { cwd: dir });
    expect(mixed.code).toBe(2);
    expect(mixed.stderr).toMatch(/a\.runs\.json is a multi-run summary .* a single report/);

    const broken = JSON.parse(JSON.stringify(JSON.parse((await import('node:fs')).readFileSync(b, 'utf8')))) as MultiRun;
    broken.runs[1]!.json_path = join(dir, 'gone.json');
    writeFileSync(join(dir, 'broken.runs.json'), JSON.stringify(broken));
    const gone = await bench(['compare', a, join(dir, 'broken.runs.json')], { cwd: dir });
    expect(gone.code).toBe(2);
    expect(gone.stderr).toMatch(/broken\.runs\.json: runs\[1\] \(seed 1\): .*gone\.json: no such report file/);
  });

  it('--runs applies only to arms compare runs itself', async () => {
    const { dir, a, b } = setup();
    const r = await bench(['compare', a, b, '--runs', '3'], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--runs\/--seeds run the arms themselves/);
  });
});
