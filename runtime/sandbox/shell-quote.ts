// Its own module so that quoting a command line for display (harness/report/format.ts) does not load the sandbox.

/** Quotes one word for /bin/sh: single quotes, with embedded ones closed, escaped and reopened. */
export function shellQuote(s: string): string {
  return `'${s.replaceAll("'", "'\\''")}'`;
}
