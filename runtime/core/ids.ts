import { monotonicFactory } from 'ulid';

/** Produces ULIDs that sort strictly increasing within this process, even within one millisecond. */
export type IdFactory = (prefix?: string) => string;

/** Creates a monotonic ULID generator; `prefix` yields ids such as `tu_01J...`. */
export function createIdFactory(now: () => number = Date.now): IdFactory {
  const next = monotonicFactory();
  return (prefix?: string) => {
    const id = next(now());
    return prefix ? `${prefix}_${id}` : id;
  };
}

/** The process-wide id generator; components take an IdFactory so tests can pass their own. */
export const newId: IdFactory = createIdFactory();
