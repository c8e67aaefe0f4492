// Issue 13: --holdout workload adds pass C-oos, and every A3 report carries the oracle block.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import type { BenchReport } from '../../schemas/types/report.ts';
import { validatorFor } from '../../runtime/core/schemas.ts';
import { bench, tempDir } from '../support/cli.ts';

const ENV = { PATH: process.env.PATH };
const WORKLOADS = ['fix-a-bug-small', 'write-a-doc-from-notes'];

describe('bench run --protocol a3 --holdout workload', () => {
  it('runs C-oos on the same reps as C, routed with workload_id null, and reports in- and out-of-sample capture', { timeout: 240_000 }, async () => {
    const db = join(tempDir(), 'h.db');
    const r = await bench(['run', '--protocol', 'a3', ...WORKLOADS.flatMap((w) => ['--workload', w]), '--holdout', 'workload', '--oracle-epsilon', '0.05', '--quiet', '--db-path', db], { env: ENV });
    expect(r.code, r.stderr).not.toBe(2);
    const report = JSON.parse(readFileSync(db.replace(/\.db$/, '.json'), 'utf8')) as BenchReport;
    expect(validatorFor<BenchReport>('report.schema.json')(report)).toBe(true);
    expect(report.provenance.holdout).toBe('workload');
    const m = report.protocol_metrics!;
    expect(m.passes.map((p) => p.pass)).toEqual(['A', 'B', 'C', 'C-oos', 'R']);
    expect(report.workloads.filter((w) => w.pass === 'C-oos').map((w) => w.workload)).toEqual(WORKLOADS);
    const o = m.oracle!;
    expect(o.epsilon).toBe(0.05);
    expect(o.true_oracle.available).toBe(true);
    expect(o.routers.map((x) => [x.pass, x.sample])).toEqual([['C', 'in_sample'], ['C-oos', 'out_of_sample']]);
    expect(o.points.map((p) => p.arm)).toEqual(['A', 'B', 'oracle', 'true_oracle', 'C', 'random', 'C-oos', 'random_oos']);
    expect(r.stdout).toContain('C-oos (routed, out of sample)');

    // Out of sample, slot 4 only ever saw the OTHER workload: any K-NN evidence it shows comes from a
    // store holding one workload's fingerprints, and a C-oos turn is never recorded into the run's store.
    const conn = new Database(db, { readonly: true });
    try {
      const oosSessions = report.workloads.filter((w) => w.pass === 'C-oos').flatMap((w) => w.reps.flatMap((x) => x.session_ids));
      const recorded = conn.prepare(`SELECT COUNT(*) AS n FROM events WHERE type = 'pattern.recorded' AND session_id IN (${oosSessions.map(() => '?').join(',')})`).get(...oosSessions) as { n: number };
      expect(recorded.n).toBe(0);
    } finally {
      conn.close();
    }
    const patterns = new Database(db.replace(/\.db$/, '.patterns.db'), { readonly: true });
    try {
      const rows = patterns.prepare('SELECT structural_json FROM fingerprints').all() as { structural_json: string }[];
      // The run's own store holds only workload-tagged fingerprints (A, B and C), none with workload_id null.
      expect(rows.every((x) => (JSON.parse(x.structural_json) as { workload_id: string | null }).workload_id !== null)).toBe(true);
    } finally {
      patterns.close();
    }
  });

  it('--holdout without --protocol a3 is a setup error naming the fix', async () => {
    const r = await bench(['run', '--workload', 'fix-a-bug-small', '--holdout', 'workload', '--db-path', join(tempDir(), 'x.db')], { env: ENV });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--holdout needs --protocol a3');
  });
});
