// The largest input file the harness reads, per kind, as data (harness/data/input-limits.json). Checked
// from the size on disk before reading: parsing a 100 MB YAML file took minutes, and reading a file whole
// past V8's string limit fails deep inside a parser with no file name.
import { readFileSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { cachedParse } from '../runtime/core/parsed-file-cache.ts';
import { formatAjvErrors, validatorFor } from '../runtime/core/schemas.ts';
import type { InputLimits } from '../schemas/types/input-limits.ts';
import { SetupError } from './errors.ts';

/** The shipped limits. */
export const INPUT_LIMITS_PATH = fileURLToPath(new URL('./data/input-limits.json', import.meta.url));

/** A kind of input file with its own limit. */
export type InputKind = keyof InputLimits['limits'];

/** Loads and validates a limits file; a problem names the file and field. */
export function loadInputLimits(path: string = INPUT_LIMITS_PATH): InputLimits {
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new SetupError(`${path}: cannot read the input limits: ${(e as Error).message} (restore it from the repository)`);
  }
  const validate = validatorFor<InputLimits>('input-limits.schema.json');
  if (!validate(data)) throw new SetupError(`${path}: ${formatAjvErrors(validate.errors).join('; ')} (see schemas/input-limits.schema.json)`);
  return data;
}

let shipped: InputLimits | null = null;

/**
 * The shipped limits, loaded once; kept in the parsed-file cache while dist/ runs, so a start that only checks
 * sizes (analyze reading workloads) need not load the limits' validator.
 */
export function defaultInputLimits(): InputLimits {
  return (shipped ??= cachedParse('input-limits', INPUT_LIMITS_PATH, () => loadInputLimits()));
}

/** A byte count as people read it: 1.5 MiB, 300 B. */
export function formatBytes(n: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = n;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return u === 0 ? `${n} B` : `${Number(v.toFixed(1))} ${units[u]}`;
}

/**
 * Refuses `file` when its size on disk is over the limit of `kind`, before reading a byte: the message names
 * the file, its size, the limit and its value. Returns the size, or null when the file cannot be stat'ed
 * (the caller's own read reports why).
 */
export function checkInputSize(file: string, kind: InputKind, limits: InputLimits = defaultInputLimits()): number | null {
  let size: number;
  try {
    size = statSync(file).size;
  } catch {
    return null;
  }
  refuseOverLimit(file, size, kind, limits);
  return size;
}

/** `checkInputSize` for a size the caller has stat'ed already (one stat serves the existence check and this). */
export function refuseOverLimit(file: string, size: number, kind: InputKind, limits: InputLimits = defaultInputLimits()): void {
  const limit = limits.limits[kind];
  if (size > limit.max_bytes)
    throw new SetupError(
      `${file}: ${formatBytes(size)} (${size} bytes) is over the ${kind} limit of ${formatBytes(limit.max_bytes)} (${limit.max_bytes} bytes) for ${limit.files} ` +
        `(limits.${kind}.max_bytes in harness/data/input-limits.json; see docs/cli.md, Input limits: split the file, or raise the limit there if the file is genuine)`,
    );
}
