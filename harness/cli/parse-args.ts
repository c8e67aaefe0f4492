import { InvalidArgumentError, type Command } from 'commander';
import { terminalWidth } from '../report/fit-table.ts';
import type { CliIO } from '../io/cli-io.ts';
import { Decimal } from 'decimal.js';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { SetupError } from '../errors.ts';

/** Accumulates a repeatable option. */
export function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/** Parses an integer option no smaller than `min`, naming the flag in the error. */
export function intArg(flag: string, min: number, max = Number.MAX_SAFE_INTEGER) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < min || n > max) {
      throw new InvalidArgumentError(`${flag} takes a whole number ${max === Number.MAX_SAFE_INTEGER ? `>= ${min}` : `from ${min} to ${max}`}, got '${value}'`);
    }
    return n;
  };
}

/** Parses a number option in [min, max], naming the flag in the error. */
export function numberArg(flag: string, min: number, max: number) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isFinite(n) || n < min || n > max) throw new InvalidArgumentError(`${flag} takes a number from ${min} to ${max}, got '${value}'`);
    return n;
  };
}

/** Parses a positive money amount as a Decimal, naming the flag in the error. */
export function decimalArg(flag: string) {
  return (value: string): Decimal => {
    let d: Decimal;
    try {
      d = new Decimal(value);
    } catch {
      throw new InvalidArgumentError(`${flag} takes an amount in USD such as 0.50, got '${value}'`);
    }
    if (!d.isFinite() || d.lte(0)) throw new InvalidArgumentError(`${flag} takes a positive amount in USD, got '${value}'`);
    return d;
  };
}

/** `--width N` / `--wide`, the flags of every command that prints tables. */
export function addWidthOptions(cmd: Command): Command {
  return cmd
    .option('--width <n>', 'fit tables to this many columns (default: the terminal, else $COLUMNS, else 100)', intArg('--width', 40))
    .option('--wide', 'print every column at full width, however wide', false);
}

/** The width tables must fit for these options: null with --wide; read at the CLI edge (stdout's columns on a TTY). */
export function tableWidth(o: { width?: number; wide?: boolean }, io: Pick<CliIO, 'isTTY' | 'env'>): number | null {
  return terminalWidth({ wide: o.wide, width: o.width ?? null, columns: io.isTTY ? process.stdout.columns : undefined, env: io.env });
}

/** `--request-timeout` / `--max-retries`, the flags of every command that may call a real provider. */
export function addRequestOptions(cmd: Command): Command {
  return cmd
    .option('--request-timeout <seconds>', 'real providers: the most one HTTP attempt may take before it fails as a network error and is retried (default 600); a call that keeps the run waiting is shown on stderr meanwhile', numberArg('--request-timeout', 0.1, 86_400))
    .option('--max-retries <n>', 'real providers: retries after a failed attempt (rate limit, server error, network, timeout), each shown on stderr (default 4)', intArg('--max-retries', 0, 20));
}

/** What addRequestOptions' flags ask of a run (RunSuiteOptions' fields; null keeps the adapters' defaults). */
export function requestOptions(o: { requestTimeout?: number; maxRetries?: number }): { requestTimeoutSeconds: number | null; maxRetries: number | null } {
  return { requestTimeoutSeconds: o.requestTimeout ?? null, maxRetries: o.maxRetries ?? null };
}

/** `--force`, for commands whose `--json` (or other output flag) may name an existing file. */
export function addForceOption(cmd: Command): Command {
  return cmd.option('--force', 'overwrite an existing file named by --json', false);
}

/**
 * The absolute path an output flag names, refused when a file is already there and `force` is off, as
 * `--db-path` refuses an existing DB: a typo must not overwrite last week's report.
 */
export function freshOutputPath(cwd: string, path: string, opts: { flag: string; force: boolean }): string {
  const abs = resolve(cwd, path);
  if (!opts.force && existsSync(abs)) throw new SetupError(`${abs}: ${opts.flag} names a file that already exists; pass a new path, or --force to overwrite it`);
  return abs;
}
