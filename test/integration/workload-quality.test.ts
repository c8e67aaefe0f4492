import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { BenchReport } from '../../schemas/types/report.ts';
import { bench, tempDir } from '../support/cli.ts';
import { competentOnly, copyWorkloads, doNothing, rewriteSim } from '../support/workload-variants.ts';

import { readdirSync, existsSync } from 'node:fs';
import { REPO_ROOT } from '../support/temp.ts';

// Every shipped workload, found on disk, so a new one is held to the same rules the day it lands.
const SHIPPED = readdirSync(join(REPO_ROOT, 'workloads')).filter((n) => existsSync(join(REPO_ROOT, 'workloads', n, 'workload.yaml')));
// The evaluator control fails for every plan by design (benchmark.md §4.1); it has its own test.
const CONTROLS = new Set(['intentionally-failing-task']);

async function runOne(workloadsDir: string, name: string): Promise<BenchReport> {
  const out = join(tempDir(), 'r.db');
  const r = await bench(['run', '--workloads-dir', workloadsDir, '--workload', name, '--db-path', out, '--provider', 'sim'], { env: { PATH: process.env.PATH } });
  expect(r.code, r.stderr).not.toBe(2);
  return JSON.parse(readFileSync(out.replace(/\.db$/, '.json'), 'utf8')) as BenchReport;
}

// Spec §5: every workload's competent sim plan passes its check and a do-nothing run fails it,
// run through the real runtime (dispatcher, sandbox, hidden check mount), not a stand-in.
describe.each(SHIPPED.filter((n) => !CONTROLS.has(n)))('workload %s discriminates', (name) => {
  it('the competent plan passes the hidden check and scores high', async () => {
    const dir = copyWorkloads([name]);
    rewriteSim(dir, name, competentOnly);
    const rep = (await runOne(dir, name)).workloads[0]!.reps[0]!;
    expect(rep.check?.passed, rep.check?.output_tail).toBe(true);
    expect(rep.failed_tool_calls).toBe(0);
    expect(rep.assertions.filter((a) => !a.passed)).toEqual([]);
    expect(rep.score).toBe(1);
  });

  it('a do-nothing run fails the hidden check and scores below 0.75', async () => {
    const dir = copyWorkloads([name]);
    rewriteSim(dir, name, doNothing);
    const rep = (await runOne(dir, name)).workloads[0]!.reps[0]!;
    expect(rep.check?.passed).toBe(false);
    expect(rep.tool_calls).toBe(0);
    expect(rep.score!).toBeLessThan(0.75);
  });
});
