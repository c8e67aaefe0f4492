import { createHash } from 'node:crypto';
import type { HrTime } from '@opentelemetry/api';

function digest(parts: readonly string[]): string {
  // NUL-joined so ('ab', 'c') and ('a', 'bc') never collide.
  return createHash('sha256').update(parts.join('\0')).digest('hex');
}

/** W3C forbids the all-zero id; a hash that starts with it (p ≈ 2^-64) is nudged to a valid one. */
function nonZero(hex: string): string {
  return /^0+$/.test(hex) ? `${hex.slice(0, -1)}1` : hex;
}

/** The trace id of a run: the first 16 bytes of SHA-256 over the run id, so every export of a run agrees. */
export function traceIdOf(runId: string): string {
  return nonZero(digest(['metis.trace', runId]).slice(0, 32));
}

/** A span id from the run id and the key of what it stands for (a rep id, an event id): 8 bytes of SHA-256. */
export function spanIdOf(runId: string, key: string): string {
  return nonZero(digest(['metis.span', runId, key]).slice(0, 16));
}

/** UTC microseconds as OpenTelemetry's [seconds, nanoseconds], exactly (no float division). */
export function hrTimeOfUs(us: number): HrTime {
  const seconds = Math.floor(us / 1_000_000);
  return [seconds, (us - seconds * 1_000_000) * 1000];
}
