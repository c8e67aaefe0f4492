import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { SetupError } from '../../errors.ts';
import { startViewServer, LOOPBACK_HOSTS } from '../../view/view-server.ts';
import type { CommandSpec } from '../command.ts';

const EXAMPLES = `
With no DB, every trace DB, matrix DB and cache stream report (JSON) in --runs-dir is served. The viewer opens each DB read-only and listens on
loopback only; stop it with Ctrl-C.

Pages: the runs; a matrix run's summary (headline, settings at their chosen point, baselines); a cache
stream run's summary (hits, wrong hits, savings per stream); a run's report with every rep; one rep in full (each turn's routing decision with its
policy slots and reasons, the K-NN's per-model scores when slot 4 decided, LLM calls with tokens and cost,
tool calls with inputs and results, the hidden check's output); a compare of two ticked runs.

Examples:
  npx bench view
  npx bench view reports/.runs/bench-20261124T101500Z.db --port 8080`;

/** True for a cache stream report (the JSON a `bench run --workload cache-*` writes); other JSON is skipped. */
function isStreamReport(path: string): boolean {
  try {
    return (JSON.parse(readFileSync(path, 'utf8')) as { kind?: unknown })?.kind === 'cache_streams';
  } catch {
    return false;
  }
}

/** The trace and matrix DBs of the runs folder, and its cache stream reports (a stream run writes no DB). */
function defaultDbs(runsDir: string): string[] {
  if (!existsSync(runsDir)) return [];
  return readdirSync(runsDir)
    .filter((f) => (f.endsWith('.db') && !f.endsWith('.patterns.db')) || (f.endsWith('.json') && isStreamReport(join(runsDir, f))))
    .sort()
    .map((f) => join(runsDir, f));
}

/** `bench view [DB...]`: a local, read-only web viewer over trace DBs. */
export const viewCommandSpec: CommandSpec = {
  configure(cmd) {
    cmd
      .argument('[db...]', 'trace DBs, matrix DBs or cache stream reports to serve (default: all of them in --runs-dir)')
      .option('--port <n>', 'port to listen on (0 = any free port)', '4319')
      .option('--host <host>', `loopback address to listen on (${LOOPBACK_HOSTS.join(', ')})`, '127.0.0.1')
      .option('--runs-dir <dir>', 'where run outputs live', 'reports/.runs')
      .addHelpText('after', EXAMPLES);
  },
  async run(cmd, args, io) {
    const o = cmd.opts<{ port: string; host: string; runsDir: string }>();
    const given = (args[0] as string[] | undefined) ?? [];
    const dbPaths = given.length ? given.map((p) => resolve(io.cwd, p)) : defaultDbs(resolve(io.cwd, o.runsDir));
    const port = Number(o.port);
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new SetupError(`--port ${o.port}: expected a whole number from 0 to 65535`);
    const server = await startViewServer({ dbPaths, host: o.host, port });
    io.out(`bench view: ${dbPaths.length} trace DB(s) at ${server.url} (read-only; Ctrl-C to stop)`);
    await new Promise<void>((done) => {
      if (io.interrupt?.aborted) return done();
      io.interrupt?.addEventListener('abort', () => done(), { once: true });
    });
    await server.close();
    return 0;
  },
};
