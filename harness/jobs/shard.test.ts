import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { A3_PASSES, SINGLE_PASSES } from './passes.ts';
import { derivedRunId, parseShard, planJobs, selectJobs, shardOf } from './shard.ts';
import { SetupError } from '../errors.ts';
import { intArg } from '../cli/parse-args.ts';
import { defaultResourceLimits } from '../../runtime/sandbox/resource-limits.ts';

const workloads = (names: string[]) => names.map((name) => ({ name, delegates: name.includes('deleg') }));

describe('--shard I/N', () => {
  it('parses I/N and refuses anything else, naming the flag', () => {
    expect(parseShard('2/3')).toEqual({ index: 2, count: 3 });
    for (const bad of ['0/3', '4/3', '3', '1/0', 'a/b', '-1/2', '1/2/3']) expect(() => parseShard(bad), bad).toThrow(/--shard takes I\/N/);
  });

  it('every job lands in exactly one shard, for any selection and N', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.string({ minLength: 1, maxLength: 12 }), { minLength: 1, maxLength: 8 }), fc.integer({ min: 1, max: 5 }), fc.integer({ min: 1, max: 6 }), (names, reps, n) => {
        const all = planJobs(A3_PASSES, workloads(names), reps);
        const passes = A3_PASSES.map((p) => p.name);
        const slices = Array.from({ length: n }, (_, i) => selectJobs(all, passes, { index: i + 1, count: n }));
        expect(slices.flat().map((j) => j.index).sort((a, b) => a - b)).toEqual(all.map((j) => j.index));
      }),
    );
  });

  it("a job's shard depends on what it is, not on the selection or its order", () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.string({ minLength: 1, maxLength: 12 }), { minLength: 2, maxLength: 8 }), fc.integer({ min: 1, max: 7 }), (names, n) => {
        const a = planJobs(SINGLE_PASSES, workloads(names), 2);
        const b = planJobs(SINGLE_PASSES, workloads([...names].reverse().slice(1)), 2);
        for (const j of b) expect(shardOf(j, n)).toBe(shardOf(a.find((x) => x.workload === j.workload && x.rep === j.rep)!, n));
      }),
    );
  });

  it('plans jobs in one-machine order: passes, then workloads as selected, then reps; Pass D only for delegation workloads', () => {
    const jobs = planJobs(A3_PASSES, workloads(['b', 'a-deleg']), 2);
    expect(jobs.map((j) => `${j.pass}/${j.workload}/${j.rep}`)).toEqual([
      'A/b/0', 'A/b/1', 'A/a-deleg/0', 'A/a-deleg/1',
      'B/b/0', 'B/b/1', 'B/a-deleg/0', 'B/a-deleg/1',
      'C/b/0', 'C/b/1', 'C/a-deleg/0', 'C/a-deleg/1',
      'D/a-deleg/0', 'D/a-deleg/1',
    ]);
    expect(jobs.map((j) => j.index)).toEqual(jobs.map((_, i) => i));
  });

  it('derives one run id from the facts that make a run, and another when any of them changes', () => {
    const facts = { seed: 0, protocol: 'a3', seedPasses: 3, actualModel: 'm', baselineModel: 'b', workloads: ['x', 'y'], commit: 'abc', pricingVersion: 'p', fingerprintVersion: 'v1' };
    const id = derivedRunId(facts);
    expect(id).toMatch(/^run_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(derivedRunId({ ...facts })).toBe(id);
    for (const change of [{ seed: 1 }, { commit: 'abd' }, { workloads: ['y', 'x'] }, { pricingVersion: 'q' }, { seedPasses: 2 }]) expect(derivedRunId({ ...facts, ...change })).not.toBe(id);
  });
});

describe('planJobs size bound (issue 22: --seed-passes 1e9 built the plan eagerly and aborted at 5.4 GB)', () => {
  it('refuses a plan bigger than planned_jobs_max before building any of it, naming the count and the fix', () => {
    const names = Array.from({ length: 20 }, (_, i) => ({ name: `w${i}`, delegates: i % 2 === 0 }));
    const t0 = Date.now();
    expect(() => planJobs(A3_PASSES, names, 1e9, 100_000)).toThrow(SetupError);
    expect(() => planJobs(A3_PASSES, names, 1e9, 100_000)).toThrow(/would plan \d+ jobs .* more than planned_jobs_max \(100000, runtime\/data\/resource-limits\.json\); lower --seed-passes/);
    expect(Date.now() - t0).toBeLessThan(1000);
  });

  it('a plan at the bound is built in full (the count the guard computes is the count built)', () => {
    fc.assert(
      fc.property(fc.array(fc.boolean(), { minLength: 1, maxLength: 6 }), fc.integer({ min: 1, max: 5 }), (delegates, reps) => {
        const ws = delegates.map((d, i) => ({ name: `w${i}`, delegates: d }));
        const n = planJobs(A3_PASSES, ws, reps).length;
        expect(planJobs(A3_PASSES, ws, reps, n)).toHaveLength(n);
        expect(() => planJobs(A3_PASSES, ws, reps, n - 1)).toThrow(SetupError);
      }),
    );
  });
});

describe('CLI numeric bounds', () => {
  it('--seed-passes and --concurrency take whole numbers up to the shipped bounds; 1e9 is refused naming the range', () => {
    const { run } = defaultResourceLimits();
    const seed = intArg('--seed-passes', 1, run.seed_passes_max);
    expect(seed(String(run.seed_passes_max))).toBe(run.seed_passes_max);
    expect(() => seed('1e9')).toThrow(`--seed-passes takes a whole number from 1 to ${run.seed_passes_max}, got '1e9'`);
    expect(() => intArg('--concurrency', 1, run.concurrency_max)(String(run.concurrency_max + 1))).toThrow(/from 1 to 64/);
    expect(() => intArg('--seed', 0)('-1')).toThrow(`--seed takes a whole number >= 0, got '-1'`);
  });
});
