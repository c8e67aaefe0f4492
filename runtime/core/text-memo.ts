/**
 * A pure function of a string, remembered for the last `max` distinct strings (first in, first out: a Map
 * keeps insertion order). For the readings a turn repeats on the same text: a matrix run routes and records
 * each prompt in every fold's store and at every cost weight, and a session's text never changes once sent.
 * The answers are shared between callers, so they must be treated as read-only (callers copy what they hand out).
 */
export function textMemo<T>(fn: (text: string) => T, max: number): (text: string) => T {
  if (!(max >= 1)) throw new RangeError(`textMemo: max must be at least 1, got ${max}`);
  const memo = new Map<string, T>();
  return (text) => {
    if (memo.has(text)) return memo.get(text)!;
    const value = fn(text);
    if (memo.size >= max) memo.delete(memo.keys().next().value!);
    memo.set(text, value);
    return value;
  };
}
