/** A problem with the run's inputs: bad workload file, unknown model, existing DB. Exit code 2. */
export class SetupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SetupError';
  }
}

/** A run stopped by Ctrl-C or SIGTERM before it had anything to report. Exit code 2: no report was written. */
export class InterruptedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InterruptedError';
  }
}

/** Exit codes of every command (harness-and-runtime.md §2). */
export const EXIT = { ok: 0, assertionFailed: 1, setup: 2 } as const;
