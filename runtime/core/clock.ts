/** A source of UTC time in integer microseconds since the Unix epoch. */
export interface Clock {
  nowUs(): number;
}

/**
 * `performance.timeOrigin`, read at a process's first clock reading: the first touch of `performance` loads
 * perf_hooks and ten modules behind it, which a process that never reads the clock (analyze) need not load.
 */
let origin: number | undefined;

/** Wall clock with microsecond resolution; never goes backwards within a process. */
export function createSystemClock(): Clock {
  let last = 0;
  return {
    nowUs() {
      origin ??= performance.timeOrigin;
      const us = Math.floor((origin + performance.now()) * 1000);
      last = us > last ? us : last + 1;
      return last;
    },
  };
}

/** A clock that only moves when told to; used for simulated latency and cache TTLs. */
export interface VirtualClock extends Clock {
  advanceUs(us: number): void;
}

/** Creates a virtual clock starting at `startUs`. */
export function createVirtualClock(startUs = 0): VirtualClock {
  let t = startUs;
  return {
    nowUs: () => t,
    advanceUs(us: number) {
      if (us < 0) throw new RangeError('a virtual clock cannot go backwards');
      t += Math.round(us);
    },
  };
}

/** ISO-8601 UTC text for a microsecond timestamp (millisecond part kept, micro digits appended). */
export function isoFromUs(us: number): string {
  const ms = Math.floor(us / 1000);
  const micro = String(us % 1000).padStart(3, '0');
  return new Date(ms).toISOString().replace('Z', `${micro}Z`);
}
