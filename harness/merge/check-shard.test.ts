import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { planMismatch, type RepKey } from './check-shard.ts';
import type { RunJob } from '../jobs/shard.ts';

/** A plan of `n` jobs over two passes and three workloads, each job this DB's or not. */
const planArb = fc.array(fc.boolean(), { minLength: 1, maxLength: 12 }).map((mine) =>
  mine.map((m, index): RunJob & { mine: boolean } => ({ index, pass: index % 2 ? 'B' : 'A', workload: `w${index % 3}`, rep: index, mine: m })),
);
const rowOf = (j: RunJob): RepKey => ({ run_id: 'run_1', pass: j.pass, workload: j.workload, rep: j.rep });

describe('planMismatch', () => {
  it('is empty exactly when the rows are the planned jobs of this DB, once each (property)', () => {
    fc.assert(
      fc.property(planArb, fc.array(fc.tuple(fc.constantFrom('delete', 'duplicate', 'foreign', 'extra', 'other-run'), fc.nat()), { maxLength: 3 }), (plan, edits) => {
        const expected = plan.filter((j) => j.mine).map(rowOf);
        const rows = [...expected];
        for (const [kind, at] of edits) {
          if (kind === 'delete' && rows.length) {
            rows.splice(at % rows.length, 1);
          } else if (kind === 'duplicate' && rows.length) {
            rows.push({ ...rows[at % rows.length]! });
          } else if (kind === 'foreign') {
            const others = plan.filter((j) => !j.mine);
            if (others.length) {
              rows.push(rowOf(others[at % others.length]!));
              }
          } else if (kind === 'extra') {
            rows.push({ run_id: 'run_1', pass: 'A', workload: 'w9', rep: 100 + at });
          } else if (kind === 'other-run') {
            rows.push({ run_id: 'run_2', pass: 'A', workload: 'w0', rep: 0 });
          }
        }
        const key = (xs: RepKey[]) => JSON.stringify(xs.map((r) => [r.run_id, r.pass, r.workload, r.rep]).sort());
        expect(planMismatch('run_1', plan, rows).length > 0).toBe(key(rows) !== key(expected));
      }),
    );
  });

  it('names each kind of problem', () => {
    const plan = [
      { index: 0, pass: 'A', workload: 'w', rep: 0, mine: true },
      { index: 1, pass: 'A', workload: 'w', rep: 1, mine: true },
      { index: 2, pass: 'A', workload: 'w', rep: 2, mine: false },
    ];
    const rows: RepKey[] = [
      { run_id: 'run_1', pass: 'A', workload: 'w', rep: 0 },
      { run_id: 'run_1', pass: 'A', workload: 'w', rep: 0 },
      { run_id: 'run_1', pass: 'A', workload: 'w', rep: 2 },
      { run_id: 'run_1', pass: 'A', workload: 'v', rep: 0 },
      { run_id: 'run_x', pass: 'A', workload: 'w', rep: 1 },
    ];
    expect(planMismatch('run_1', plan, rows)).toEqual([
      'more than one row for pass A w rep 0',
      "pass A w rep 2 is another shard's job (a foreign slice)",
      'pass A v rep 0 is in no plan of this run (an extra row)',
      'a row of another run (run_x): pass A w rep 1',
      'no row for planned pass A w rep 1 (missing)',
    ]);
  });
});
