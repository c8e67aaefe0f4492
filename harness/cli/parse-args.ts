import { InvalidArgumentError } from 'commander';

/** Accumulates a repeatable option. */
export function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/** Parses an integer option no smaller than `min`, naming the flag in the error. */
export function intArg(flag: string, min: number) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < min) throw new InvalidArgumentError(`${flag} takes a whole number >= ${min}, got '${value}'`);
    return n;
  };
}

/** Parses a number option in [min, max], naming the flag in the error. */
export function numberArg(flag: string, min: number, max: number) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isFinite(n) || n < min || n > max) throw new InvalidArgumentError(`${flag} takes a number from ${min} to ${max}, got '${value}'`);
    return n;
  };
}
