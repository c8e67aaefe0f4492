import type { Provider } from '../../runtime/providers/provider.ts';
import type { RetryNotice } from '../../runtime/providers/retry.ts';
import type { ProgressMode } from './progress.ts';

// A model call that does not answer must not leave the run silent: a real provider may wait up to its request
// timeout (ten minutes by default) on every attempt, and retry four times. While a call is in flight past a few
// seconds the watch says so on stderr (on a terminal, the progress line counts the wait each second; in a log, a
// line every half minute), and each retry an adapter makes is a line of its own. `off` (--quiet): nothing.

/** How long a call runs before the wait is shown, and how often it is shown again, per mode (ms). */
export const WAIT_SHOWN_AFTER_MS: Readonly<Record<Exclude<ProgressMode, 'off'>, number>> = { tty: 5000, lines: 30_000 };

/** What the watch needs of the process: a clock and a repeating timer that does not keep the process alive. */
export interface WatchTimers {
  nowMs(): number;
  every(ms: number, tick: () => void): { stop(): void };
}

const realTimers: WatchTimers = {
  nowMs: Date.now,
  every(ms, tick) {
    const t = setInterval(tick, ms);
    t.unref();
    return { stop: () => clearInterval(t) };
  },
};

export interface CallWatch {
  /** `provider` with each call watched; `where` names the rep it serves (`pass C fix-a-bug-small rep 2`). */
  watch(provider: Provider, where: string): Provider;
  /** A retry an adapter is about to make (its RetryOptions.onRetry). */
  retried(notice: RetryNotice): void;
  /** No more calls: the timer goes. */
  stop(): void;
}

interface InFlight {
  where: string;
  model: string;
  startedMs: number;
  /** Whole intervals of waiting already shown (lines mode), so each is shown once. */
  shown: number;
}

/** `timeoutMs`: the per-attempt request timeout of the run's real provider (named in the lines), or null on the emulator. */
export function createCallWatch(o: { mode: ProgressMode; write: (s: string) => void; timeoutMs: number | null; timers?: WatchTimers }): CallWatch {
  const timers = o.timers ?? realTimers;
  const mode = o.mode;
  const calls = new Set<InFlight>();
  let timer: { stop(): void } | null = null;
  const limit = o.timeoutMs === null ? '' : ` (each attempt gives up after ${seconds(o.timeoutMs)}: --request-timeout)`;

  const tick = (): void => {
    if (mode === 'off') return;
    const now = timers.nowMs();
    const after = WAIT_SHOWN_AFTER_MS[mode];
    if (mode === 'tty') {
      // The longest wait, on the line the progress meter rewrites; its next update takes the line back.
      let oldest: InFlight | null = null;
      for (const c of calls) if (oldest === null || c.startedMs < oldest.startedMs) oldest = c;
      if (oldest && now - oldest.startedMs >= after) {
        const others = calls.size > 1 ? ` (+${calls.size - 1} more in flight)` : '';
        o.write(`\r\x1b[K${oldest.where}: waiting for ${oldest.model}, ${seconds(now - oldest.startedMs)}${others}`);
      }
      return;
    }
    for (const c of calls) {
      const intervals = Math.floor((now - c.startedMs) / after);
      if (intervals <= c.shown) continue;
      c.shown = intervals;
      o.write(`${c.where}: still waiting for ${c.model}, ${seconds(now - c.startedMs)} so far${limit}\n`);
    }
  };

  const begin = (where: string, model: string): InFlight => {
    const c: InFlight = { where, model, startedMs: timers.nowMs(), shown: 0 };
    calls.add(c);
    timer ??= timers.every(1000, tick);
    return c;
  };
  const end = (c: InFlight): void => {
    calls.delete(c);
    if (calls.size === 0 && timer) {
      timer.stop();
      timer = null;
    }
  };

  return {
    watch(provider, where) {
      if (mode === 'off') return provider;
      return {
        name: provider.name,
        capabilities: (model) => provider.capabilities(model),
        async complete(request, signal) {
          const c = begin(where, request.model);
          try {
            return await provider.complete(request, signal);
          } finally {
            end(c);
          }
        },
      };
    },
    retried(n) {
      if (mode === 'off') return;
      const line = `${n.error.message.replace(/\.$/, '')}; retry ${n.retry} of ${n.maxRetries} in ${seconds(n.waitMs)}`;
      o.write(mode === 'tty' ? `\r\x1b[K${line}\n` : `${line}\n`);
    },
    stop() {
      calls.clear();
      timer?.stop();
      timer = null;
    },
  };
}

/** `12 s`, `1.5 s`, `10 min`: a duration as a person reads it. */
function seconds(ms: number): string {
  if (ms >= 120_000 && ms % 60_000 === 0) return `${ms / 60_000} min`;
  const s = ms / 1000;
  return `${s >= 10 ? Math.floor(s) : Math.round(s * 10) / 10} s`;
}
