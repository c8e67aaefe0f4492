import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { validatorFor } from '../../runtime/core/schemas.ts';
import type { MatrixCompareArtifact } from '../../schemas/types/matrix-compare.ts';
import { bench, REPO_ROOT, tempDir } from '../support/cli.ts';

// `bench compare v1 v2` and `--arm` on a matrix workload (issue 20 item 5), through the CLI entry point, on
// the synthetic SWE-bench leaderboard fixture (8 tasks in 3 repositories, 2 models) imported first.

const FIXTURES = join(REPO_ROOT, 'test', 'fixtures', 'swebench');
let cwd = '';
let workloads = '';

beforeAll(async () => {
  cwd = tempDir();
  workloads = join(cwd, 'workloads');
  mkdirSync(workloads);
  const r = await bench(['import', 'swebench-leaderboard', '--leaderboards', join(FIXTURES, 'leaderboards.json'), '--problems', join(FIXTURES, 'problems.jsonl'), '--out', join(workloads, 'swe-small')], { cwd });
  expect(r.code, r.stderr).toBe(0);
});

const MATRIX = () => ['--workload', 'swe-small', '--workloads-dir', workloads, '--folds', '3', '--cost-weights', '0,0.5', '--tightness-per-cluster', '3', '--quiet'];
const artifact = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as MatrixCompareArtifact;

describe('bench compare on a matrix workload', () => {
  it('v1 v2: both arms run the matrix protocol out of sample on the same folds, each into its own DB and JSON, with tightness and test 5 on the repos', async () => {
    const r = await bench(['compare', 'v1', 'v2', ...MATRIX(), '--embedding-provider', 'local:hashing-384', '--out-dir', 'runs', '--json', 'cmp.json'], { cwd });
    expect(r.code, r.stderr).toBe(0);
    const c = artifact(join(cwd, 'cmp.json'));
    expect(validatorFor('matrix-compare.schema.json')(c)).toBe(true);
    expect(c).toMatchObject({ kind: 'matrix-compare', matrix: 'swe-small', tasks: 8, clusters: 3, folds: 3, seed: 0 });
    expect(c.arms.map((a) => [a.label, a.fingerprint_version, a.embedding_provider])).toEqual([
      ['v1', 'v1', null],
      ['v2', 'v2', 'local:hashing-384'],
    ]);
    for (const a of c.arms) expect(existsSync(a.db) && existsSync(a.json)).toBe(true);
    // Out of sample by default, and said so.
    expect(c.settings.map((s) => [s.setting, s.out_of_sample, s.points.length])).toEqual([
      ['unseen_tasks', true, 2],
      ['new_workspace', true, 2],
    ]);
    expect(c.message).toMatch(/out of sample \(out of sample by task .*; out of sample by cluster/);
    expect(r.stdout).toContain(c.message);
    expect(c.tightness).toMatchObject({ embedding_provider: 'local:hashing-384', alpha: 0.6, per_cluster: 3, tasks_sampled: 8 });
    expect(['pass', 'fail']).toContain(c.tightness!.verdict);
    expect(r.stdout).toMatch(/tightness test: (PASS|FAIL)/);
  }, 120_000);

  it('--arm with two configurations that route alike: "cannot distinguish", not a table of zeros', async () => {
    writeFileSync(join(cwd, 'a.yaml'), 'pattern:\n  scoring: uniform\n');
    writeFileSync(join(cwd, 'b.yaml'), 'pattern:\n  scoring: uniform\n  embedding_alpha: 0.5\n');
    const r = await bench(['compare', '--arm', 'a=a.yaml', '--arm', 'b=b.yaml', ...MATRIX(), '--out-dir', 'runs', '--json', 'arms.json'], { cwd });
    expect(r.code, r.stderr).toBe(0);
    const c = artifact(join(cwd, 'arms.json'));
    expect(c.identical).toBe(true);
    expect(c.arms.map((a) => a.routing_config)).toEqual([join(cwd, 'a.yaml'), join(cwd, 'b.yaml')]);
    expect(r.stdout).toContain('The comparison cannot distinguish a and b here: judged out of sample');
    expect(r.stdout).not.toContain('cost_weight 0:');
  }, 120_000);

  it('refuses what a matrix comparison cannot do, with exit 2', async () => {
    const files = await bench(['compare', 'x.json', 'y.json', ...MATRIX()], { cwd });
    expect(files.code).toBe(2);
    expect(files.stderr).toContain('(a matrix workload): give `v1 v2` or --arm LABEL=routing.yaml twice');
    const runs = await bench(['compare', 'v1', 'v2', ...MATRIX(), '--runs', '2'], { cwd });
    expect(runs.code).toBe(2);
    expect(runs.stderr).toContain('a matrix comparison pairs every task under one --seed');
    const weights = await bench(['compare', 'v1', 'v2', ...MATRIX().slice(0, -5), '--cost-weights', '0,2', '--quiet'], { cwd });
    expect(weights.code).toBe(2);
    expect(weights.stderr).toContain('--cost-weights: each must be a number in [0, 1]');
  });
});
