import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadReport } from '../../harness/report/find-report.ts';
import { validatorFor } from '../../runtime/core/schemas.ts';
import type { CompareArtifact } from '../../schemas/types/compare.ts';
import { bench, tempDir } from '../support/cli.ts';

const validate = validatorFor<CompareArtifact>('compare.schema.json');

function armFiles(dir: string, files: Record<string, string>): void {
  mkdirSync(dir, { recursive: true });
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
}

describe('bench compare --arm LABEL=routing.yaml (two configurations, A3 each, same seeds)', () => {
  it(
    'runs both arms end to end on one workload and one seed pass, paired, and writes compare.json in the run folder',
    { timeout: 300_000 },
    async () => {
      const cwd = tempDir();
      armFiles(cwd, {
        'uniform.yaml': 'pattern:\n  scoring: uniform\n',
        'weighted.yaml': 'pattern:\n  scoring: similarity_weighted\n  min_similarity: 0.3\n',
      });
      const r = await bench(
        ['compare', '--arm', 'uniform=uniform.yaml', '--arm', 'weighted=weighted.yaml', '--workload', 'fix-a-bug-small', '--workloads-dir', join(process.cwd(), 'workloads'), '--seed-passes', '1', '--seed', '5', '--out-dir', 'runs', '--quiet'],
        { cwd },
      );
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      const [runDir] = readdirSync(join(cwd, 'runs'));
      const dir = join(cwd, 'runs', runDir!);
      for (const f of ['uniform.db', 'uniform.patterns.db', 'uniform.json', 'weighted.db', 'weighted.patterns.db', 'weighted.json', 'compare.json']) expect(existsSync(join(dir, f)), f).toBe(true);
      expect(r.stdout).toMatch(/^A: uniform \S+uniform\.json/m);
      expect(r.stdout).toMatch(/^B: weighted \S+weighted\.json/m);
      // One workload: judged out of sample, its store is seeded from no other workload, so both arms route
      // alike, and compare says it cannot tell them apart instead of printing a table of zeros.
      expect(r.stdout).toContain('The comparison cannot distinguish A and B here');
      expect(r.stdout).toContain(`json: ${join(dir, 'compare.json')}`);

      const artifact = JSON.parse(readFileSync(join(dir, 'compare.json'), 'utf8')) as CompareArtifact;
      expect(validate(artifact), JSON.stringify(validate.errors)).toBe(true);
      expect(artifact.a).toMatchObject({ label: 'uniform', protocol: 'a3', seed: 5, seed_passes: 1 });
      expect(artifact.b).toMatchObject({ label: 'weighted', protocol: 'a3', seed: 5, seed_passes: 1 });
      expect(artifact.a.run_id).not.toBe(artifact.b.run_id);

      // Paired: both arms ran the same (pass, workload, rep) units.
      const units = (name: string) =>
        loadReport(join(dir, `${name}.json`))
          .report.workloads.flatMap((w) => w.reps.map((rep) => `${w.pass}/${w.workload}/${rep.rep}`))
          .sort();
      expect(units('weighted')).toEqual(units('uniform'));
      expect(units('uniform').length).toBeGreaterThanOrEqual(3);
    },
  );

  it('a malformed --arm spec is exit 2 showing the expected form; nothing runs', async () => {
    const cwd = tempDir();
    for (const spec of ['nolabel.yaml', '=a.yaml', 'a=', 'bad label=a.yaml']) {
      const r = await bench(['compare', '--arm', spec, '--arm', 'b=b.yaml'], { cwd });
      expect(r.code, spec).toBe(2);
      expect(r.stderr).toContain(`--arm '${spec}': expected LABEL=PATH`);
    }
    expect(readdirSync(cwd)).toEqual([]);
  });

  it('one arm, three arms, the same label twice, or arms beside report paths are exit 2', async () => {
    const cwd = tempDir();
    armFiles(cwd, { 'a.yaml': 'pattern: {}\n' });
    const one = await bench(['compare', '--arm', 'a=a.yaml'], { cwd });
    expect(one.code).toBe(2);
    expect(one.stderr).toContain('--arm given 1 time(s): a comparison needs exactly two');
    const three = await bench(['compare', '--arm', 'a=a.yaml', '--arm', 'b=a.yaml', '--arm', 'c=a.yaml'], { cwd });
    expect(three.code).toBe(2);
    expect(three.stderr).toContain('--arm given 3 time(s)');
    const same = await bench(['compare', '--arm', 'a=a.yaml', '--arm', 'a=a.yaml'], { cwd });
    expect(same.code).toBe(2);
    expect(same.stderr).toContain("both arms are labelled 'a'");
    const mixed = await bench(['compare', 'x.json', '--arm', 'a=a.yaml', '--arm', 'b=a.yaml'], { cwd });
    expect(mixed.code).toBe(2);
    expect(mixed.stderr).toContain('not both');
    const none = await bench(['compare'], { cwd });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('--arm LABEL=routing.yaml twice');
  });

  it('a missing arm file is exit 2 naming the file', async () => {
    const cwd = tempDir();
    armFiles(cwd, { 'a.yaml': 'pattern: {}\n' });
    const r = await bench(['compare', '--arm', 'a=a.yaml', '--arm', 'b=missing.yaml'], { cwd });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`--arm b: ${join(cwd, 'missing.yaml')} does not exist`);
  });

  it('invalid YAML or an invalid routing config in an arm is exit 2 with the file and line, before any run', async () => {
    const cwd = tempDir();
    armFiles(cwd, {
      'a.yaml': 'pattern: {}\n',
      'broken.yaml': 'pattern:\n  scoring: uniform\n    min_similarity: [\n',
      'wrong.yaml': 'pattern:\n  cost_weight: 0.05\n  scoring: nearest\n',
    });
    const broken = await bench(['compare', '--arm', 'a=a.yaml', '--arm', 'b=broken.yaml'], { cwd });
    expect(broken.code).toBe(2);
    expect(broken.stderr).toMatch(new RegExp(`${join(cwd, 'broken.yaml').replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:\\d+`));
    const wrong = await bench(['compare', '--arm', 'a=a.yaml', '--arm', 'w=wrong.yaml'], { cwd });
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain(`${join(cwd, 'wrong.yaml')}:3`);
    expect(wrong.stderr).toContain('scoring');
    expect(readdirSync(cwd).sort()).toEqual(['a.yaml', 'broken.yaml', 'wrong.yaml']);
  });
});
