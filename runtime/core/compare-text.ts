// The first String.prototype.localeCompare of a process builds ICU's collator (about 6 ms, a twentieth of an
// `analyze`), for names that are nearly always lower-case slugs and model ids. For text of lower-case ASCII
// letters, digits, '-', '.' and '/', the default collation orders as the code points do (every character has
// its own primary weight, punctuation below digits below letters, in code-point order), so no collator is needed.

/** Text whose default-collation order is its code-point order (see above). */
const PLAIN = /^[a-z0-9./-]*$/;

/** `a.localeCompare(b)`, without building a collator when both are plain lower-case ASCII names. */
export function compareText(a: string, b: string): number {
  if (PLAIN.test(a) && PLAIN.test(b)) return a < b ? -1 : a > b ? 1 : 0;
  return a.localeCompare(b);
}
