import { Command, CommanderError } from 'commander';
import { DataFileError } from '../../runtime/core/yaml-document.ts';
import { EXIT, SetupError } from '../errors.ts';
import { TraceStoreError } from '../../runtime/trace/index.ts';
import { runCommandSpec } from './commands/run.ts';
import { listCommandSpec } from './commands/list.ts';
import { validateCommandSpec } from './commands/validate.ts';
import { analyzeCommandSpec } from './commands/analyze.ts';
import { signalCommandSpec } from './commands/signal.ts';
import { reportCommandSpec } from './commands/report.ts';
import { compareCommandSpec } from './commands/compare.ts';
import { mergeCommandSpec } from './commands/merge.ts';
import { viewCommandSpec } from './commands/view.ts';
import { planCommandSpec } from './commands/plan.ts';
import { exportCommandSpec } from './commands/export.ts';
import { importCommandSpec } from './commands/import.ts';
import type { CommandSpec, CliIO } from './command.ts';

const COMMANDS: CommandSpec[] = [runCommandSpec, listCommandSpec, validateCommandSpec, analyzeCommandSpec, reportCommandSpec, compareCommandSpec, signalCommandSpec, viewCommandSpec, mergeCommandSpec, exportCommandSpec, importCommandSpec, planCommandSpec];

/** Maps any error to an exit code in one place: setup problems are 2, everything unexpected too. */
function exitCodeFor(e: unknown, io: CliIO): number {
  // A TraceStoreError names the DB file and what to do (another schema version, corrupt pages): no stack.
  if (e instanceof SetupError || e instanceof DataFileError || e instanceof TraceStoreError) {
    io.err(`error: ${e.message}`);
    return EXIT.setup;
  }
  io.err(`error: ${(e as Error)?.stack ?? String(e)}`);
  return EXIT.setup;
}

/** Entry point of `bench`; returns the process exit code. */
export async function main(argv: string[], io: CliIO = defaultIO()): Promise<number> {
  const program = new Command('bench')
    .description('Metis bench: run LLM-agent workloads through the Metis runtime and report cost savings and quality.')
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.out(s.trimEnd()), writeErr: (s) => io.err(s.trimEnd()) })
    .showHelpAfterError('(run with --help for usage)');
  let code: number = EXIT.ok;
  for (const spec of COMMANDS) {
    const cmd = program.command(spec.name).description(spec.description).exitOverride();
    spec.configure(cmd);
    cmd.action(async (...args: unknown[]) => {
      code = await spec.run(cmd, args, io);
    });
  }
  try {
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
