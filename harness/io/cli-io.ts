/**
 * Where a command reads its environment and writes its output; tests pass their own. Every layer that
 * prints (the runner, the protocols, compare, the cache and matrix benches) writes through this sink, so it
 * sits on the ground floor and imports nothing (docs/architecture.md).
 */
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
