import type { CliIO } from '../io/cli-io.ts';
import { mapPool } from '../runner/pool.ts';
import type { Protocol, ProtocolTypes, RunHost } from './run-protocol.ts';

/**
 * Runs any protocol through the host that records it: plan and open (every setup error before any
 * work), each pass's jobs (side by side up to the host's concurrency, each committed as it ends),
 * the protocol's check after each pass, its work outside the plan, then the report. Knows no protocol.
 */
export async function runProtocol<T extends ProtocolTypes, Outcome, P extends Protocol<T>>(protocol: P, host: RunHost<T, Outcome, P>, io: Pick<CliIO, 'interrupt'>): Promise<Outcome> {
  const run = await host.open(protocol);
  try {
    let stopped = false;
    try {
      for (const pass of run.passes) {
        const jobs = run.todo.filter((j) => j.pass === pass.name);
        await mapPool(jobs, run.concurrency, async (job) => {
          if (stopped || io.interrupt?.aborted) {
            stopped = true;
            return null;
          }
          if (await run.commit(job, await protocol.runOne(job, run.ctx))) stopped = true;
          return null;
        });
        if (stopped) break;
        await run.passDone();
        run.recordingErrors(protocol.afterPass(pass, jobs.length, run.ctx));
      }
      if (!stopped) stopped = await protocol.finish(run.ctx);
    } catch (e) {
      throw run.failed(e);
    }
    return await run.report(stopped);
  } finally {
    await run.close();
  }
}
