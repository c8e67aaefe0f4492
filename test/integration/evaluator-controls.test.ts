import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadModelRegistry } from '../../runtime/models/index.ts';
import type { BenchReport } from '../../schemas/types/report.ts';
import { bench, tempDir } from '../support/cli.ts';
import { competentOnly, copyWorkloads, rewriteSim } from '../support/workload-variants.ts';

const ENV = { PATH: process.env.PATH };
const read = (db: string) => JSON.parse(readFileSync(db.replace(/\.db$/, '.json'), 'utf8')) as BenchReport;

describe('intentionally-failing-task: the evaluator control (benchmark.md §4.1)', () => {
  it.each(loadModelRegistry().list().map((m) => m.id))('scores below 0.5 on every rep for %s, and the check never passes', async (model) => {
    const db = join(tempDir(), 'ctl.db');
    const r = await bench(['run', '--workload', 'intentionally-failing-task', '--model', model, '--seed-passes', '3', '--db-path', db], { env: ENV });
    expect(r.code, r.stderr).not.toBe(2);
    const reps = read(db).workloads[0]!.reps;
    expect(reps).toHaveLength(3);
    for (const rep of reps) {
      expect(rep.check?.passed).toBe(false);
      expect(rep.score!).toBeLessThan(0.5);
    }
  });

  it('even its competent plan (the honest explanation) fails the check and scores below 0.5', async () => {
    const dir = copyWorkloads(['intentionally-failing-task']);
    rewriteSim(dir, 'intentionally-failing-task', competentOnly);
    const db = join(tempDir(), 'ctl2.db');
    await bench(['run', '--workloads-dir', dir, '--workload', 'intentionally-failing-task', '--db-path', db], { env: ENV });
    const rep = read(db).workloads[0]!.reps[0]!;
    expect(rep.check?.passed).toBe(false);
    // The failed check gates it: 0.49 · the other signals (completion 2 + expectations 1 + tool health 1 of 8).
    expect(rep.score).toBeCloseTo(0.49 * (4 / 8), 12);
  });
});
