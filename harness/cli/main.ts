import { Command, CommanderError, Help } from 'commander';
import { EXIT, InterruptedError, SetupError } from '../errors.ts';
import { catalogEntry, COMMAND_CATALOG, requestedCommand } from './command-catalog.ts';
import type { CliIO } from '../io/cli-io.ts';

/** Maps any error to an exit code in one place: setup problems are 2, everything unexpected too. */
async function exitCodeFor(e: unknown, io: CliIO): Promise<number> {
  // A TraceStoreError names the DB file and what to do (another schema version, corrupt pages): no stack.
  if (e instanceof SetupError || e instanceof InterruptedError || (await isDataOrTraceError(e))) {
    io.err(`error: ${(e as Error).message}`);
    return EXIT.setup;
  }
  io.err(`error: ${(e as Error)?.stack ?? String(e)}`);
  return EXIT.setup;
}

/**
 * A data-file or trace-store error. Their modules load only on this path, so start-up does not pay for
 * YAML and the trace store; a command that threw one has loaded them already (same classes).
 */
async function isDataOrTraceError(e: unknown): Promise<boolean> {
  const [{ DataFileError }, { TraceStoreError }] = await Promise.all([import('../../runtime/core/yaml-document.ts'), import('../../runtime/trace/index.ts')]);
  return e instanceof DataFileError || e instanceof TraceStoreError;
}

/** `bench --help` lists every command from the catalog, so the commands not asked for stay unloaded. */
function catalogHelp(): Partial<Help> {
  const plain = new Help();
  return {
    subcommandTerm: (cmd) => {
      const entry = catalogEntry(cmd.name());
      return entry ? `${entry.name} ${entry.usage}` : plain.subcommandTerm(cmd);
    },
  };
}

/** Entry point of `bench`; returns the process exit code. */
export async function main(argv: string[], io: CliIO = defaultIO()): Promise<number> {
  const program = new Command('bench')
    .description('Metis bench: run LLM-agent workloads through the Metis runtime and report cost savings and quality.')
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.out(s.trimEnd()), writeErr: (s) => io.err(s.trimEnd()) })
    .configureHelp(catalogHelp())
    .showHelpAfterError('(run with --help for usage)');
  let code: number = EXIT.ok;
  try {
    const wanted = requestedCommand(argv);
    for (const entry of COMMAND_CATALOG) {
      const cmd = program.command(entry.name).description(entry.description).exitOverride();
      // Only the command named on the line is loaded and given its flags; the others are names in the list.
      if (entry !== wanted) continue;
      const spec = await entry.load();
      spec.configure(cmd);
      cmd.action(async (...args: unknown[]) => {
        code = await spec.run(cmd, args, io);
      });
    }
    await program.parseAsync(argv, { from: 'user' });
    return code;
  } catch (e) {
    if (e instanceof CommanderError) {
      // --help and --version exit 0; usage mistakes are setup errors.
      return e.exitCode === 0 ? EXIT.ok : EXIT.setup;
    }
    return exitCodeFor(e, io);
  }
}

/**
 * First Ctrl-C or SIGTERM (a CI timeout, `kill`, a container stop): stop cleanly after the current turn and
 * write the partial report (marked interrupted). A second one quits now.
 */
export function interruptSignal(err: (s: string) => void, proc: Pick<NodeJS.Process, 'on' | 'exit'> = process): AbortSignal {
  const controller = new AbortController();
  const on = (name: 'SIGINT' | 'SIGTERM', code: number, again: string) =>
    proc.on(name, () => {
      if (controller.signal.aborted) proc.exit(code);
      err(`\ninterrupted (${name}): stopping the model call in flight, then writing the report (${again} to quit now)`);
      controller.abort();
    });
  on('SIGINT', 130, 'Ctrl-C again');
  on('SIGTERM', 143, 'a second SIGTERM');
  return controller.signal;
}

/**
 * A writer for a standard stream that goes quiet once its reader is gone (`bench list | head`): EPIPE
 * stops further writes instead of crashing, and the command goes on, so a run still writes its report.
 */
export function quietOnEpipe(stream: NodeJS.WriteStream): (s: string) => void {
  let closed = false;
  stream.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') closed = true;
    else throw e;
  });
  return (s) => {
    if (!closed) stream.write(`${s}\n`);
  };
}

function defaultIO(): CliIO {
  const err = quietOnEpipe(process.stderr);
  return {
    interrupt: interruptSignal(err),
    out: quietOnEpipe(process.stdout),
    err,
    isTTY: Boolean(process.stdout.isTTY),
    progress: (s) => {
      if (!process.stderr.destroyed) process.stderr.write(s);
    },
    env: process.env,
    cwd: process.cwd(),
  };
}
