/** The trace DB cannot be opened or written; the message names the file. */
export class TraceStoreError extends Error {
  constructor(
    readonly file: string,
    problem: string,
  ) {
    super(`${file}: ${problem}`);
    this.name = 'TraceStoreError';
  }
}
