import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bench, REPO_ROOT, tempDir } from '../support/cli.ts';

/** A workloads dir holding a copy of fix-a-bug-small with its workload.yaml replaced by `yaml`. */
function brokenWorkloads(mutate: (dir: string) => void): { root: string; file: string } {
  const root = join(tempDir(), 'workloads');
  mkdirSync(root);
  const dir = join(root, 'fix-a-bug-small');
  cpSync(join(REPO_ROOT, 'workloads', 'fix-a-bug-small'), dir, { recursive: true });
  mutate(dir);
  return { root, file: join(dir, 'workload.yaml') };
}

const ENV = { PATH: process.env.PATH };

describe('bad workload input is exit 2 with file, line and column', () => {
  it('malformed YAML', async () => {
    const { root, file } = brokenWorkloads((d) => writeFileSync(join(d, 'workload.yaml'), 'name: fix-a-bug-small\nturns: [\n  - prompt: x\n'));
    const r = await bench(['run', '--workloads-dir', root, '--include-marginal', '--db-path', join(tempDir(), 'x.db')], { env: ENV });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(new RegExp(`${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:\\d+:\\d+: malformed YAML`));
  });

  it('an unknown key', async () => {
    const { root, file } = brokenWorkloads((d) => writeFileSync(join(d, 'workload.yaml'), 'name: fix-a-bug-small\ndescription: d\nsuite_version: 1\nturns:\n  - prompt: x\n    expct: {}\n'));
    const r = await bench(['run', '--workloads-dir', root, '--workload', 'fix-a-bug-small', '--db-path', join(tempDir(), 'x.db')], { env: ENV });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${file}:6:5: unknown key 'expct' at /turns/0`);
  });

  it('a missing workspace', async () => {
    const { root } = brokenWorkloads((d) => rmSync(join(d, 'workspace'), { recursive: true }));
    const r = await bench(['run', '--workloads-dir', root, '--include-marginal', '--db-path', join(tempDir(), 'x.db')], { env: ENV });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/fix-a-bug-small: missing workspace\/ directory/);
  });

  it('a sim script with two competent plans in a turn', async () => {
    const { root } = brokenWorkloads((d) => writeFileSync(join(d, 'sim.yaml'), 'version: 1\nturns:\n  - difficulty: 0.5\n    plans:\n      - {id: a, competent: true, steps: [], final: x}\n      - {id: b, competent: true, steps: [], final: y}\n'));
    const r = await bench(['run', '--workloads-dir', root, '--include-marginal', '--db-path', join(tempDir(), 'x.db')], { env: ENV });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/sim\.yaml:\d+:\d+: .*competent/);
  });

  it('a missing workloads directory', async () => {
    const r = await bench(['run', '--workloads-dir', '/nonexistent/wl', '--include-marginal'], { env: ENV });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('/nonexistent/wl: workloads directory not found');
  });
});

describe('bench validate and bench list', () => {
  it('validate passes the shipped workloads and reports every broken one with exit 2', async () => {
    const ok = await bench(['validate']);
    expect(ok.code).toBe(0);
    expect(ok.stdout.split('\n').filter((l) => l.startsWith('ok')).length).toBeGreaterThanOrEqual(3);
    const { root } = brokenWorkloads((d) => writeFileSync(join(d, 'workload.yaml'), 'name: fix-a-bug-small\nfoo: 1\n'));
    const bad = await bench(['validate', '--workloads-dir', root]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/invalid .*workload\.yaml:2:1: unknown key 'foo'/);
  });

  it('list shows each workload with its signal strength and turn count', async () => {
    const r = await bench(['list', '--json']);
    expect(r.code).toBe(0);
    const rows = JSON.parse(r.stdout) as { name: string; signal_strength: string; turns: number }[];
    expect(rows.find((x) => x.name === 'multi-turn-refactor')).toMatchObject({ signal_strength: 'marginal', turns: 5 });
  });

  it('--help of run lists its flags and the cost table', async () => {
    const r = await bench(['run', '--help']);
    expect(r.code).toBe(0);
    for (const s of ['--include-marginal', '--workload', '--db-path', '--seed-passes', 'full suite at --model opus', 'Exit codes']) expect(r.stdout).toContain(s);
  });
});

describe('--json never overwrites a file it did not write (as --db-path refuses an existing DB)', () => {
  const existing = () => {
    const path = join(tempDir(), 'last-week.json');
    writeFileSync(path, '{"keep": true}\n');
    return path;
  };

  it('bench run, analyze, signal and compare refuse an existing --json with exit 2, name it and leave it alone', async () => {
    const fixtures = join(REPO_ROOT, 'test', 'fixtures', 'reports');
    const runs: [string, string[]][] = [
      ['run', ['run', '--workload', 'fix-a-bug-small', '--db-path', join(tempDir(), 'r.db')]],
      ['analyze', ['analyze', '--db-path', join(tempDir(), 'none.db')]],
      ['signal', ['signal', '--workload', 'fix-a-bug-small', '--db-path', join(tempDir(), 's.db')]],
      ['compare', ['compare', join(fixtures, 'single.json'), join(fixtures, 'a3.json')]],
    ];
    for (const [name, args] of runs) {
      const path = existing();
      const r = await bench([...args, '--json', path], { env: ENV });
      expect(r.code, name).toBe(2);
      expect(r.stderr, name).toContain(`${path}: --json names a file that already exists; pass a new path, or --force to overwrite it`);
      expect(readFileSync(path, 'utf8'), name).toBe('{"keep": true}\n');
    }
  });

  it('--force overwrites it', async () => {
    const fixtures = join(REPO_ROOT, 'test', 'fixtures', 'reports');
    const path = existing();
    const r = await bench(['compare', join(fixtures, 'single.json'), join(fixtures, 'a3.json'), '--json', path, '--force'], { env: ENV });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(readFileSync(path, 'utf8'))).toHaveProperty('a');
  });
});
