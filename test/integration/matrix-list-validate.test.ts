import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SetupError } from '../../harness/errors.ts';
import { discoverWorkloads, loadWorkload, matrixWorkloadDirs, selectWorkloads } from '../../harness/workloads/load-workload.ts';
import { bench, REPO_ROOT, tempDir } from '../support/cli.ts';

const FIXTURES = join(REPO_ROOT, 'test', 'fixtures', 'swebench');

/** A workloads dir holding one agent workload and one small matrix (imported from the synthetic leaderboard). */
async function workloadsWithMatrix(): Promise<{ root: string; outcomes: string }> {
  const root = join(tempDir(), 'workloads');
  mkdirSync(root);
  cpSync(join(REPO_ROOT, 'workloads', 'fix-a-bug-small'), join(root, 'fix-a-bug-small'), { recursive: true });
  const r = await bench(['import', 'swebench-leaderboard', '--leaderboards', join(FIXTURES, 'leaderboards.json'), '--problems', join(FIXTURES, 'problems.jsonl'), '--out', join(root, 'swe-small')]);
  expect(r.code, r.stderr).toBe(0);
  return { root, outcomes: join(root, 'swe-small', 'outcomes.jsonl') };
}

/** Rewrites line `n` (1-based) of a file. */
function setLine(file: string, n: number, edit: (line: string) => string): void {
  const lines = readFileSync(file, 'utf8').split('\n');
  lines[n - 1] = edit(lines[n - 1]!);
  writeFileSync(file, lines.join('\n'));
}

describe('bench list and bench validate know matrix workloads', () => {
  it('list shows the matrix (tasks, models, clusters, licence) apart from the agent workloads; --json gives it kind matrix', async () => {
    const { root } = await workloadsWithMatrix();
    const r = await bench(['list', '--workloads-dir', root, '--width', '120']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^matrix +tasks +models +clusters +licence$/m);
    expect(r.stdout).toMatch(/^swe-small +8 +2 +3 +CC-BY-NC-4\.0$/m);
    expect(r.stdout).toContain('models: 20250101_mini-swe-agent_strong, 20250102_mini-swe-agent_cheap');
    const rows = JSON.parse((await bench(['list', '--workloads-dir', root, '--json'])).stdout) as { kind: string; name: string }[];
    expect(rows.map((x) => [x.kind, x.name])).toEqual([
      ['agent', 'fix-a-bug-small'],
      ['matrix', 'swe-small'],
    ]);
  });

  it('validate checks the matrix with the agent workloads, and by path', async () => {
    const { root } = await workloadsWithMatrix();
    const all = await bench(['validate', '--workloads-dir', root]);
    expect(all.code, all.stderr).toBe(0);
    expect(all.stdout).toContain(`ok      ${join(root, 'swe-small')} (matrix, 8 tasks × 2 models)`);
    expect(all.stdout).toContain(`ok      ${join(root, 'fix-a-bug-small')}`);
    const one = await bench(['validate', join(root, 'swe-small', 'workload.yaml')]);
    expect(one.code, one.stderr).toBe(0);
    expect(one.stdout).toContain('(matrix, 8 tasks × 2 models)');
  });

  it.each([
    ['a score outside [0, 1]', (f: string) => setLine(f, 4, (l) => l.replace('"score":1', '"score":3')), 4, 'score must be a number in [0, 1]', 'from 0 to 1'],
    ['a duplicate task', (f: string) => setLine(f, 6, (l) => l.replace('"id":"beta__web-202"', '"id":"alpha__lib-101"')), 6, "duplicate task id 'alpha__lib-101' (first on line 2)", 'unique id'],
    ['a missing cell', (f: string) => setLine(f, 3, (l) => l.replace(/,\{"score":[01],"usd":"[0-9.]+","calls":\d+\}\]\}$/, ']}')), 3, 'missing cell for model 20250102_mini-swe-agent_cheap', 'one cell per header model'],
    ['an unknown model', (f: string) => setLine(f, 1, (l) => l.replace('"price_source":"recorded"', '"price_source":"price-table"')), 1, "unknown model '20250101_mini-swe-agent_strong'", 'add the model to runtime/data/prices.json'],
    ['bad JSON', (f: string) => setLine(f, 5, (l) => l.slice(0, -3)), 5, 'bad JSON', 'one complete JSON object per line'],
  ])('%s: validate and list exit 2 naming the file, the line and the fix', async (_what, corrupt, line, problem, fix) => {
    const { root, outcomes } = await workloadsWithMatrix();
    corrupt(outcomes);
    for (const cmd of [['validate', '--workloads-dir', root], ['list', '--workloads-dir', root]]) {
      const r = await bench(cmd);
      expect(r.code, cmd[0]).toBe(2);
      expect(r.stderr).toContain(`${outcomes}:${line}: `);
      expect(r.stderr).toContain(problem);
      expect(r.stderr).toContain(fix);
    }
  });

  it('the agent selection leaves matrices out: a default run never sends one through the agent loop', async () => {
    const { root } = await workloadsWithMatrix();
    expect(discoverWorkloads(root).map((w) => w.spec.name)).toEqual(['fix-a-bug-small']);
    expect(selectWorkloads(discoverWorkloads(root), { names: [], includeMarginal: true }).map((w) => w.spec.name)).toEqual(['fix-a-bug-small']);
    expect(matrixWorkloadDirs(root)).toEqual([join(root, 'swe-small')]);
    expect(() => loadWorkload(join(root, 'swe-small'))).toThrow(SetupError);
    expect(() => loadWorkload(join(root, 'swe-small'))).toThrow(/kind: matrix holds recorded outcomes, not an agent workload/);
  });
});
