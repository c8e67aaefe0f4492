import { describe, expect, it } from 'vitest';
import type { OpenRun, Protocol, ProtocolTypes, RunHost } from './run-protocol.ts';
import { runProtocol } from './drive-protocol.ts';

/** A protocol the runner has never heard of: jobs are numbers doubled, the section their sum. */
interface FakeTypes extends ProtocolTypes {
  planInput: { n: number };
  ctx: { log: string[] };
  job: { pass: string; x: number };
  result: number;
  sectionInput: readonly number[];
  section: { sum: number };
}

function fakeProtocol(log: string[], over: Partial<Protocol<FakeTypes>> = {}): Protocol<FakeTypes> {
  return {
    name: 'fake',
    passes: [{ name: 'first' }, { name: 'second' }],
    plan: ({ n }) => Array.from({ length: n }, (_, x) => ({ pass: x % 2 ? 'second' : 'first', x })),
    runOne: (job, ctx) => {
      ctx.log.push(`run ${job.pass}:${job.x}`);
      return Promise.resolve(job.x * 2);
    },
    afterPass: (pass, ran) => {
      log.push(`after ${pass.name} ran ${ran}`);
      return [`checked ${pass.name}`];
    },
    finish: () => {
      log.push('finish');
      return Promise.resolve(false);
    },
    reportSection: (results) => ({ sum: results.reduce((a, b) => a + b, 0) }),
    ...over,
  };
}

/** A host that keeps results in memory; `stopAt` makes the commit of that job stop the run. */
function fakeHost(log: string[], o: { n: number; stopAt?: number; skip?: number[] }): RunHost<FakeTypes, { section: { sum: number }; stopped: boolean; errors: string[] }> {
  return {
    open: (protocol) => {
      const results: number[] = [];
      const errors: string[] = [];
      log.push('open');
      const run: OpenRun<FakeTypes, { section: { sum: number }; stopped: boolean; errors: string[] }> = {
        ctx: { log },
        passes: protocol.passes,
        // As a resume would: committed jobs are left out of what this invocation runs.
        todo: protocol.plan({ n: o.n }).filter((j) => !(o.skip ?? []).includes(j.x)),
        concurrency: 2,
        commit: (job, r) => {
          results.push(r);
          log.push(`commit ${job.x}`);
          return Promise.resolve(job.x === o.stopAt);
        },
        passDone: () => {
          log.push('pass done');
          return Promise.resolve();
        },
        recordingErrors: (e) => errors.push(...e),
        failed: (e) => new Error(`mapped: ${(e as Error).message}`),
        report: (stopped) => {
          log.push('report');
          return Promise.resolve({ section: protocol.reportSection(results), stopped, errors });
        },
        close: () => {
          log.push('close');
          return Promise.resolve();
        },
      };
      return Promise.resolve(run);
    },
  };
}

describe('runProtocol drives any protocol through its host', () => {
  it('plans, runs each pass in order, checks it, finishes, reports the section and closes', async () => {
    const log: string[] = [];
    const out = await runProtocol(fakeProtocol(log), fakeHost(log, { n: 4, skip: [2] }), {});
    expect(out).toEqual({ section: { sum: 0 + 2 + 6 }, stopped: false, errors: ['checked first', 'checked second'] });
    expect(log.filter((l) => !l.startsWith('commit'))).toEqual(['open', 'run first:0', 'pass done', 'after first ran 1', 'run second:1', 'run second:3', 'pass done', 'after second ran 2', 'finish', 'report', 'close']);
  });

  it('a commit that says stop ends the run before the next pass and reports it stopped', async () => {
    const log: string[] = [];
    const out = await runProtocol(fakeProtocol(log), fakeHost(log, { n: 4, stopAt: 0 }), {});
    expect(out.stopped).toBe(true);
    expect(log.some((l) => l.startsWith('run second'))).toBe(false);
    expect(log).not.toContain('finish');
    expect(log.slice(-2)).toEqual(['report', 'close']);
  });

  it('an interrupt already raised runs no job; the partial report is still written', async () => {
    const log: string[] = [];
    const ac = new AbortController();
    ac.abort();
    const out = await runProtocol(fakeProtocol(log), fakeHost(log, { n: 4 }), { interrupt: ac.signal });
    expect(out.stopped).toBe(true);
    expect(log.filter((l) => l.startsWith('run'))).toEqual([]);
  });

  it("finish's early stop reaches the report", async () => {
    const log: string[] = [];
    const out = await runProtocol(fakeProtocol(log, { finish: () => Promise.resolve(true) }), fakeHost(log, { n: 2 }), {});
    expect(out.stopped).toBe(true);
  });

  it('a job that throws goes through the host’s mapping, no report is written, and the host is closed', async () => {
    const log: string[] = [];
    const boom = fakeProtocol(log, { runOne: () => Promise.reject(new Error('boom')) });
    await expect(runProtocol(boom, fakeHost(log, { n: 2 }), {})).rejects.toThrow('mapped: boom');
    expect(log).not.toContain('report');
    expect(log.at(-1)).toBe('close');
  });
});
