import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { BenchReport } from '../../schemas/types/report.ts';
import { bench, tempDir } from '../support/cli.ts';

// Issue 22: nothing bounded what a rep could use, and a huge --seed-passes aborted the process.
const varTmp = mkdtempSync('/var/tmp/metis-limits-');
afterAll(() => rmSync(varTmp, { recursive: true, force: true }));

/** A one-turn workload whose sim plan runs these shell commands, in `dir`. */
function workload(dir: string, name: string, commands: string[]): void {
  const w = join(dir, name);
  mkdirSync(join(w, 'workspace'), { recursive: true });
  writeFileSync(join(w, 'workspace', 'app.txt'), 'hello\n');
  const calls = commands.map((c) => `              - tool: run_shell\n                input: { command: ${JSON.stringify(c)} }\n`).join('');
  const plan = (id: string, competent: boolean) => `      - id: ${id}\n        competent: ${competent}\n        steps:\n          - tool_calls:\n${calls}        final: "Done."\n`;
  writeFileSync(join(w, 'sim.yaml'), `version: 1\nturns:\n  - difficulty: 0.1\n    plans:\n${plan('go', true)}${plan('go-again', false)}`);
  writeFileSync(join(w, 'workload.yaml'), `name: ${name}\ndescription: a probe\nsuite_version: 1\nsignal_strength: marginal\nturns:\n  - prompt: "go"\n`);
}

describe('resource bounds of a run', () => {
  it('a rep whose workspace passes the disk bound ends as resource_limit naming it, and the run goes on to the next workload', { timeout: 180_000 }, async () => {
    const dir = mkdtempSync(join(varTmp, 'workloads-'));
    // Sparse: no disk used, yet 4 MiB apparent against a 2 MiB bound.
    workload(dir, 'fill', ['truncate -s 1M a.bin b.bin c.bin d.bin', 'echo after > after.txt']);
    workload(dir, 'calm', ['echo ok > ok.txt']);
    const db = join(tempDir(), 'limits.db');
    const r = await bench(['run', '--workloads-dir', dir, '--workload', 'fill', '--workload', 'calm', '--db-path', db, '--provider', 'sim', '--quiet', '--limit', 'workspace_max_bytes=2097152']);
    expect(r.code, r.stderr).not.toBe(2);
    const report = JSON.parse(readFileSync(db.replace(/\.db$/, '.json'), 'utf8')) as BenchReport;
    const rep = (name: string) => report.workloads.find((w) => w.workload === name)!.reps[0]!;
    expect(rep('fill').error_class).toBe('resource_limit');
    expect(rep('fill').error).toMatch(/resource limit workspace_max_bytes \(2 MiB\) exceeded/);
    expect(rep('calm').error).toBeNull();
  });

  it('--seed-passes 1e9 exits 2 at once naming the bound, rather than building the plan', { timeout: 60_000 }, async () => {
    const r = await bench(['run', '--provider', 'sim', '--seed-passes', '1e9', '--db-path', join(tempDir(), 'x.db')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--seed-passes takes a whole number from 1 to 1000, got '1e9'/);
  });

  it('a bad --limit exits 2 naming the keys', { timeout: 60_000 }, async () => {
    const r = await bench(['run', '--provider', 'sim', '--limit', 'disk=1', '--db-path', join(tempDir(), 'y.db')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--limit "disk=1": use KEY=VALUE with KEY one of workspace_max_bytes, max_processes, max_memory_bytes, rep_max_seconds/);
  });
});
