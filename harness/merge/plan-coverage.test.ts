import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { A3_PASSES, SINGLE_PASSES } from '../jobs/passes.ts';
import { planJobs, type RunJob } from '../jobs/shard.ts';
import { coverageProblems, jobsOfShard, planHoles, showJob } from './plan-coverage.ts';

/** A whole a3 plan: 1-4 workloads (some delegating), 1-3 reps. */
const planArb = fc
  .record({ workloads: fc.array(fc.boolean(), { minLength: 1, maxLength: 4 }), reps: fc.integer({ min: 1, max: 3 }) })
  .map(({ workloads, reps }) => planJobs(A3_PASSES, workloads.map((delegates, i) => ({ name: `w${i}`, delegates })), reps));

/** The inputs of an honest merge: N shards of the plan's passes, each holding exactly its slice. */
const honest = (plan: RunJob[], n: number) => {
  const passes = [...new Set(plan.map((j) => j.pass))];
  return Array.from({ length: n }, (_, k) => {
    const shard = { index: k + 1, count: n };
    return { path: `s${k + 1}.db`, passes, shard, rows: jobsOfShard(plan, passes, shard) };
  });
};

describe('coverageProblems', () => {
  it('is empty for honest shards, and names the job when any one rep is dropped from its shard (property)', () => {
    fc.assert(
      fc.property(planArb, fc.integer({ min: 1, max: 4 }), fc.nat(), (plan, n, at) => {
        const inputs = honest(plan, n);
        const passes = inputs[0]!.passes;
        expect(coverageProblems(plan, passes, inputs)).toEqual([]);
        // Dropped: the row is gone and nothing the shard says about itself is asked.
        const job = plan[at % plan.length]!;
        const dropped = inputs.map((i) => ({ ...i, rows: i.rows.filter((r) => r !== job) }));
        const problems = coverageProblems(plan, passes, dropped);
        expect(problems).toHaveLength(1);
        expect(problems[0]).toContain(`no input holds planned ${showJob(job)} (missing;`);
      }),
    );
  });

  it('names a rep held twice, or held by the wrong shard', () => {
    const plan = planJobs(SINGLE_PASSES, [{ name: 'w', delegates: false }], 4);
    const inputs = honest(plan, 2);
    const moved = inputs[0]!.rows[0]!;
    const twice = [inputs[0]!, { ...inputs[1]!, rows: [...inputs[1]!.rows, moved] }];
    expect(coverageProblems(plan, ['single'], twice)).toEqual([`${showJob(moved)} is held by s1.db and s2.db`]);
    const wrong = [{ ...inputs[0]!, rows: inputs[0]!.rows.slice(1) }, { ...inputs[1]!, rows: [...inputs[1]!.rows, moved] }];
    expect(coverageProblems(plan, ['single'], wrong)).toEqual([`${showJob(moved)} is held by s2.db, but belongs to s1.db (shard 1/2)`]);
  });
});

describe('planHoles', () => {
  it('is empty for a whole plan and names a job taken out of it (property)', () => {
    fc.assert(
      fc.property(planArb, fc.nat(), (plan, at) => {
        expect(planHoles(plan, A3_PASSES)).toEqual([]);
        const job = plan[at % plan.length]!;
        const holed = plan.filter((j) => j !== job);
        // Taking the only job of a workload, of its delegation pass, or of the last rep leaves a smaller whole plan: nothing to see.
        const smaller = !holed.some((j) => j.workload === job.workload) || (job.pass === 'D' && !holed.some((j) => j.workload === job.workload && j.pass === 'D')) || holed.every((j) => j.rep < job.rep);
        if (!smaller) expect(planHoles(holed, A3_PASSES).join('; ')).toContain(showJob(job));
      }),
    );
  });
});
