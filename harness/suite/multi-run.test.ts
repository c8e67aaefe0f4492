import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { BenchReport } from '../../schemas/types/report.ts';
import type { MultiRun } from '../../schemas/types/multi-run.ts';
import { REPO_ROOT, tempDir } from '../../test/support/temp.ts';
import { loadReport } from '../report/find-report.ts';
import type { CliIO } from '../io/cli-io.ts';
import { runPaths, runSeeds, seedsFor } from './multi-run.ts';
import type { RunSuiteOptions, RunSuiteResult } from './run-suite-options.ts';

const a3 = (): BenchReport => structuredClone(loadReport(join(REPO_ROOT, 'test/fixtures/reports/a3.json')).report);
const io = (cwd: string): CliIO => ({ out: () => {}, err: () => {}, isTTY: false, progress: () => {}, env: {}, cwd });
const options = (o: Partial<RunSuiteOptions> = {}): RunSuiteOptions =>
  ({ workloadsDir: 'workloads', workloadNames: [], includeMarginal: false, provider: 'sim', model: 'haiku', baseline: 'sonnet', seedPasses: 2, seed: 0, temperature: 0, dbPath: null, jsonPath: null, patternsDbPath: null, protocol: 'a3', showProgress: false, ...o }) as RunSuiteOptions;

// A stand-in runner: the fixture report, with Pass C's solved outcomes flipped on odd seeds (another learning trajectory).
function fakeRun(seen: RunSuiteOptions[]) {
  return async (o: RunSuiteOptions): Promise<RunSuiteResult> => {
    seen.push(o);
    const report = a3();
    report.provenance.seed = o.seed;
    report.provenance.run_id = `run-${o.seed}`;
    if (o.seed % 2 === 1) for (const w of report.workloads.filter((x) => x.pass === 'C')) for (const r of w.reps) r.solved = !r.solved;
    return { report, dbPath: o.dbPath!, jsonPath: o.jsonPath! };
  };
}

describe('bench run --runs N / --seeds (issue 23 item 4)', () => {
  it('seeds: --runs N counts up from --seed; --seeds as given; one run is not a multi-run', () => {
    expect(seedsFor({ seed: 4, runs: 3 })).toEqual([4, 5, 6]);
    expect(seedsFor({ seed: 0, seeds: '7, 2,9' })).toEqual([7, 2, 9]);
    expect(seedsFor({ seed: 0, runs: 1 })).toBeNull();
    expect(seedsFor({ seed: 0 })).toBeNull();
  });

  it('refuses bad seed lists with the fix in the message', () => {
    expect(() => seedsFor({ seed: 0, seeds: '1,x' })).toThrow(/--seeds takes a comma list of integers/);
    expect(() => seedsFor({ seed: 0, seeds: '1,1' })).toThrow(/each seed once/);
    expect(() => seedsFor({ seed: 0, seeds: '1,2', runs: 3 })).toThrow(/disagree/);
  });

  it('one DB, pattern store and JSON per run, named by seed', () => {
    expect(runPaths('/r/x.db', null, 3)).toEqual({ dbPath: '/r/x.seed-3.db', jsonPath: '/r/x.seed-3.json' });
    expect(runPaths('/r/x.db', '/o/out.json', 3)).toEqual({ dbPath: '/r/x.seed-3.db', jsonPath: '/o/out.seed-3.json' });
  });

  it('runs each seed with its own paths and store, then writes a schema-valid summary whose interval holds the between-run spread', async () => {
    const dir = tempDir();
    const seen: RunSuiteOptions[] = [];
    const r = await runSeeds(options({ dbPath: 'x.db' }), [0, 1, 2], io(dir), fakeRun(seen), 0);
    expect(seen.map((o) => [o.seed, o.dbPath, o.patternsDbPath])).toEqual([
      [0, join(dir, 'x.seed-0.db'), null],
      [1, join(dir, 'x.seed-1.db'), null],
      [2, join(dir, 'x.seed-2.db'), null],
    ]);
    expect(r.summaryPath).toBe(join(dir, 'x.runs.json'));
    expect(existsSync(r.summaryPath)).toBe(true);
    const summary = JSON.parse(readFileSync(r.summaryPath, 'utf8')) as MultiRun;
    const h = summary.headline!;
    expect(h.solved_rate_diff_pts.per_run.map((p) => p.run)).toEqual(['seed 0', 'seed 1', 'seed 2']);
    expect(h.solved_rate_diff_pts.between_se!).toBeGreaterThan(0);
    // The first run alone cannot see the flip on seed 1; the combined interval is wider.
    const width = (e: { ci_low: number | null; ci_high: number | null }) => e.ci_high! - e.ci_low!;
    expect(width(h.solved_rate_diff_pts)).toBeGreaterThan(width(h.single_run.solved_rate_diff_pts));
    expect(h.verdict).toMatch(/over 3 independent runs \(seeds 0, 1, 2;/);
  });

  it('refuses a shared pattern store and flags that split a run', async () => {
    const dir = tempDir();
    await expect(runSeeds(options({ patternsDbPath: 'p.db' }), [0, 1], io(dir), fakeRun([]), 0)).rejects.toThrow(/drop --patterns-db-path/);
    await expect(runSeeds(options({ resumePath: 'x.db' }), [0, 1], io(dir), fakeRun([]), 0)).rejects.toThrow(/drop --resume/);
  });
});
