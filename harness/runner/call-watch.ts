import type { Provider } from '../../runtime/providers/provider.ts';
import type { RetryNotice } from '../../runtime/providers/retry.ts';
import type { ToolDispatcher } from '../../runtime/tools/index.ts';
import type { ProgressMode } from './progress.ts';

// Work that keeps a run waiting must not leave it silent: a real provider may wait up to its request timeout
// (ten minutes by default) on every attempt and retry four times; a model may give run_shell ten minutes; a
// hidden check runs as long as its workload allows. While such work goes on past a few seconds the watch says
// so on stderr (on a terminal, the progress line counts the wait each second; in a log, a line every half
// minute), and each retry an adapter makes is a line of its own. `off` (--quiet): nothing.

/** How long work runs before its wait is shown, and how often it is shown again, per mode (ms). */
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
  /** True under --quiet: nothing is watched. */
  readonly quiet: boolean;
  /** The per-attempt timeout of the run's real provider, named in the log's lines about a model call; null on the emulator. */
  readonly requestTimeoutMs: number | null;
  /**
   * Runs `work`, shown while it keeps the run waiting as `WHERE: WHAT, 12 s` (`where` names the rep it serves,
   * `pass C fix-a-bug-small rep 2`; `what` the work, `waiting for anthropic:claude-haiku-4-5`); `limit` says
   * when it gives up, in the log's lines.
   */
  track<T>(where: string, what: string, work: () => Promise<T>, limit?: string): Promise<T>;
  /** A retry an adapter is about to make (its RetryOptions.onRetry). */
  retried(notice: RetryNotice): void;
  /** Nothing more is watched: the timer goes. */
  stop(): void;
}

interface InFlight {
  where: string;
  what: string;
  limit: string;
  startedMs: number;
  /** Whole intervals of waiting already shown (lines mode), so each is shown once. */
  shown: number;
}

export function createCallWatch(o: { mode: ProgressMode; write: (s: string) => void; requestTimeoutMs: number | null; timers?: WatchTimers }): CallWatch {
  const timers = o.timers ?? realTimers;
  const mode = o.mode;
  const inFlight = new Set<InFlight>();
  let timer: { stop(): void } | null = null;

  const tick = (): void => {
    if (mode === 'off') return;
    const now = timers.nowMs();
    const after = WAIT_SHOWN_AFTER_MS[mode];
    if (mode === 'tty') {
      // The longest wait, on the line the progress meter rewrites; its next update takes the line back.
      let oldest: InFlight | null = null;
      for (const c of inFlight) if (oldest === null || c.startedMs < oldest.startedMs) oldest = c;
      if (oldest && now - oldest.startedMs >= after) {
        const others = inFlight.size > 1 ? ` (+${inFlight.size - 1} more in flight)` : '';
        o.write(`\r\x1b[K${oldest.where}: ${oldest.what}, ${seconds(now - oldest.startedMs)}${others}`);
      }
      return;
    }
    for (const c of inFlight) {
      const intervals = Math.floor((now - c.startedMs) / after);
      if (intervals <= c.shown) continue;
      c.shown = intervals;
      o.write(`${c.where}: still ${c.what}, ${seconds(now - c.startedMs)} so far${c.limit ? ` (${c.limit})` : ''}\n`);
    }
  };

  return {
    quiet: mode === 'off',
    requestTimeoutMs: o.requestTimeoutMs,
    async track(where, what, work, limit = '') {
      if (mode === 'off') return work();
      const c: InFlight = { where, what, limit, startedMs: timers.nowMs(), shown: 0 };
      inFlight.add(c);
      timer ??= timers.every(1000, tick);
      try {
        return await work();
      } finally {
        inFlight.delete(c);
        if (inFlight.size === 0 && timer) {
          timer.stop();
          timer = null;
        }
      }
    },
    retried(n) {
      if (mode === 'off') return;
      const line = `${n.error.message.replace(/\.$/, '')}; retry ${n.retry} of ${n.maxRetries} in ${seconds(n.waitMs)}`;
      o.write(mode === 'tty' ? `\r\x1b[K${line}\n` : `${line}\n`);
    },
    stop() {
      inFlight.clear();
      timer?.stop();
      timer = null;
    },
  };
}

/** `provider` with each call tracked by `watch`. */
export function watchProvider(provider: Provider, watch: CallWatch, where: string): Provider {
  if (watch.quiet) return provider;
  const timeout = watch.requestTimeoutMs;
  const limit = timeout === null ? '' : `each attempt gives up after ${seconds(timeout)}: --request-timeout`;
  return {
    name: provider.name,
    capabilities: (model) => provider.capabilities(model),
    complete: (request, signal) => watch.track(where, `waiting for ${request.model}`, () => provider.complete(request, signal), limit),
  };
}

/** `tools` with each call tracked by `watch` (a command the model gave minutes runs that long). */
export function watchTools(tools: ToolDispatcher, watch: CallWatch, where: string): ToolDispatcher {
  if (watch.quiet) return tools;
  return {
    specs: () => tools.specs(),
    dispatch: (call, ctx) => watch.track(where, `running tool ${call.name}`, () => tools.dispatch(call, ctx)),
  };
}

/** `12 s`, `1.5 s`, `10 min`: a duration as a person reads it. */
function seconds(ms: number): string {
  if (ms >= 120_000 && ms % 60_000 === 0) return `${ms / 60_000} min`;
  const s = ms / 1000;
  return `${s >= 10 ? Math.floor(s) : Math.round(s * 10) / 10} s`;
}
