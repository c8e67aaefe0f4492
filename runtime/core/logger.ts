/** Structured log levels; bus diagnostics go here, never onto the bus (catalog §3.5). */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/** One structured log record. */
export interface LogRecord {
  level: LogLevel;
  msg: string;
  fields?: Record<string, unknown>;
}

/** Minimal structured logger interface passed into components. */
export interface Logger {
  log(level: LogLevel, msg: string, fields?: Record<string, unknown>): void;
}

/** Writes JSON lines to stderr at or above `min`. */
export function createStderrLogger(min: LogLevel = 'warn'): Logger {
  const order: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3 };
  return {
    log(level, msg, fields) {
      if (order[level] < order[min]) return;
      process.stderr.write(`${JSON.stringify({ level, msg, ...fields })}\n`);
    },
  };
}

/** Keeps records in memory; for tests and for collecting run warnings into a report. */
export function createMemoryLogger(): Logger & { records: LogRecord[] } {
  const records: LogRecord[] = [];
  return {
    records,
    log(level, msg, fields) {
      records.push(fields ? { level, msg, fields } : { level, msg });
    },
  };
}
