import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Decimal } from 'decimal.js';
import { describe, expect, it } from 'vitest';
import type { BenchReport } from '../../schemas/types/report.ts';
import { bench, tempDir } from '../support/cli.ts';

const ENV = { PATH: process.env.PATH };
const read = (db: string) => JSON.parse(readFileSync(db.replace(/\.db$/, '.json'), 'utf8')) as BenchReport;

describe('--max-cost and --concurrency', () => {
  it('--max-cost stops before spend passes the bound: report incomplete, exit 1', async () => {
    const db = join(tempDir(), 'cap.db');
    const r = await bench(['run', '--include-marginal', '--seed-passes', '3', '--max-cost', '0.03', '--db-path', db], { env: ENV });
    expect(r.code).toBe(1);
    const report = read(db);
    expect(report.status).toBe('incomplete');
    expect(report.exit_code).toBe(1);
    expect(new Decimal(report.aggregate.savings.actual_repriced_usd).lte('0.03')).toBe(true);
    expect(report.workloads.flatMap((w) => w.reps).some((rep) => rep.error?.startsWith('stopped: --max-cost 0.03'))).toBe(true);
    // Fewer reps than asked for: the run stopped scheduling work.
    expect(report.aggregate.workload_runs).toBeLessThan(9);
  });

  it('--concurrency 3 gives the same per-workload numbers as a sequential run', async () => {
    const a = join(tempDir(), 'seq.db');
    const b = join(tempDir(), 'par.db');
    await bench(['run', '--include-marginal', '--seed-passes', '2', '--db-path', a], { env: ENV });
    await bench(['run', '--include-marginal', '--seed-passes', '2', '--concurrency', '3', '--db-path', b], { env: ENV });
    const pick = (r: BenchReport) => r.workloads.map((w) => ({ w: w.workload, s: w.savings, q: w.quality_mean, llm: w.llm_calls, tool: w.tool_calls }));
    expect(pick(read(b))).toEqual(pick(read(a)));
    expect(read(b).aggregate.savings).toEqual(read(a).aggregate.savings);
  });
});

describe('Ctrl-C', () => {
  it('an interrupted run stops before the next turn, writes its report and says it is incomplete', async () => {
    const controller = new AbortController();
    controller.abort();
    const db = join(tempDir(), 'int.db');
    const { main } = await import('../../harness/cli/main.ts');
    const err: string[] = [];
    const code = await main(['run', '--include-marginal', '--db-path', db], {
      out: () => {},
      err: (s) => err.push(s),
      isTTY: false,
      progress: () => {},
      env: ENV,
      cwd: process.cwd(),
      interrupt: controller.signal,
    });
    expect(code).toBe(1);
    const report = read(db);
    expect(report.status).toBe('incomplete');
    expect(report.workloads.flatMap((w) => w.reps).every((r) => r.error?.startsWith('stopped: interrupted'))).toBe(true);
  });
});
