import { formatEta, type ProgressMode } from './progress.ts';

// A count with an ETA for any long job that is not a rep loop (the matrix protocol's routing decisions, a
// query stream's queries, an import's lines). On a terminal: one stderr line rewritten at most once a
// second. In a log: a plain line at most every ten seconds, so a CI log shows the job advancing without
// a line per item. `off` (--quiet): nothing.

/** How often each mode may write, in milliseconds. */
export const METER_INTERVAL_MS: Readonly<Record<Exclude<ProgressMode, 'off'>, number>> = { tty: 1000, lines: 10_000 };

export interface ProgressMeter {
  /** `n` more items done. */
  tick(n?: number): void;
  /** The job found `n` more items to do (counted in the total, so the count never reads done before it is). */
  grow(n: number): void;
  /** The job is over: a terminal's line is cleared. */
  done(): void;
}

export function createMeter(o: { label: string; total: number; mode: ProgressMode; write: (s: string) => void; nowMs?: () => number }): ProgressMeter {
  const now = o.nowMs ?? Date.now;
  const started = now();
  let total = o.total;
  let count = 0;
  let last = started;
  let shown = false;
  const line = () => {
    const pct = total > 0 ? ` (${Math.floor((100 * count) / total)}%)` : '';
    const elapsed = now() - started;
    const eta = count > 0 && count < total ? `, eta ${formatEta((elapsed / count) * (total - count))}` : '';
    return `${o.label}: ${count.toLocaleString('en-US')}/${total.toLocaleString('en-US')}${pct}${eta}`;
  };
  return {
    tick(n = 1) {
      count += n;
      // A job that found more work than planned (a nested choice's inner folds) never reads past 100%.
      if (count > total) total = count;
      if (o.mode === 'off') return;
      const t = now();
      if (t - last < METER_INTERVAL_MS[o.mode]) return;
      last = t;
      shown = true;
      o.write(o.mode === 'tty' ? `\r\x1b[K${line()}` : `${line()}\n`);
    },
    grow(n) {
      total += n;
    },
    done() {
      if (o.mode === 'tty' && shown) o.write('\r\x1b[K');
    },
  };
}
