import type { Command } from 'commander';

/** Where a command reads its environment and writes its output; tests pass their own. */
export interface CliIO {
  out(line: string): void;
  err(line: string): void;
  /** Progress goes to stderr on a TTY only. */
  isTTY: boolean;
  progress(text: string): void;
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  /** Aborted on Ctrl-C: long commands stop after the current turn and still write what they have. */
  interrupt?: AbortSignal;
}

/** A CLI command as a declaration: its flags, and a `run` that parses them and calls the library (its name and description are in command-catalog.ts). */
export interface CommandSpec {
  configure(cmd: Command): void;
  run(cmd: Command, args: unknown[], io: CliIO): Promise<number>;
}
