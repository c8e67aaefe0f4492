import type { Command } from 'commander';
import type { CliIO } from '../io/cli-io.ts';

/** A CLI command as a declaration: its flags, and a `run` that parses them and calls the library (its name and description are in command-catalog.ts). */
export interface CommandSpec {
  configure(cmd: Command): void;
  run(cmd: Command, args: unknown[], io: CliIO): Promise<number>;
}
