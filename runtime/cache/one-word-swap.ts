// Two questions that are word for word the same except one content word ask about different things far
// more often than they paraphrase each other: "install numpy with pip" / "with conda", "git rebase" /
// "git merge". Embeddings put such pairs very close (one token of many), and lower-case tool names slip
// past the gate's entity and identifier readings, so the gate refuses a one-word swap outright. The cost
// is the rare paraphrase that swaps a single synonym ("loads" / "fetches"): a miss, never a wrong answer.

/** Function words: swapping one of these is not a change of subject. */
const FUNCTION_WORDS = new Set([
  'a', 'an', 'the', 'this', 'that', 'these', 'those', 'some', 'any', 'each', 'every', 'all', 'both',
  'i', 'me', 'my', 'we', 'us', 'our', 'you', 'your', 'it', 'its', 'they', 'them', 'their', 'he', 'she', 'his', 'her', 'one',
  'is', 'are', 'was', 'were', 'be', 'been', 'being', 'am', 'do', 'does', 'did', 'have', 'has', 'had',
  'can', 'could', 'should', 'would', 'will', 'shall', 'may', 'might', 'must',
  'what', 'which', 'who', 'whom', 'whose', 'when', 'where', 'why', 'how',
  'in', 'on', 'at', 'of', 'for', 'to', 'from', 'with', 'by', 'about', 'into', 'onto', 'over', 'under', 'via', 'per', 'as',
  'and', 'or', 'but', 'so', 'if', 'then', 'than', 'also', 'just', 'please', 'there', 'here',
]);

const WORD = /[\p{L}\p{N}_]+(?:['’.-][\p{L}\p{N}_]+)*/gu;

/** The lower-cased words of `text`, in order (inner apostrophes, dots and hyphens kept). */
export function wordsOf(text: string): string[] {
  return (text.toLowerCase().match(WORD) ?? []).map((w) => w.replace(/’/g, "'"));
}

/** The word and the bases it may be an inflection of (using → us, use; running → runn, run; copies → copy). */
export function formsOf(w: string): Set<string> {
  const forms = new Set([w]);
  if (w.length > 4 && w.endsWith('ies')) forms.add(`${w.slice(0, -3)}y`);
  for (const suffix of ['ing', 'ed', 'es', 's', 'er', 'est', 'ly']) {
    if (!w.endsWith(suffix) || w.length - suffix.length < 2) continue;
    const base = w.slice(0, -suffix.length);
    forms.add(base).add(`${base}e`);
    if (base.length > 2 && base[base.length - 1] === base[base.length - 2]) forms.add(base.slice(0, -1));
  }
  return forms;
}

/** The same word up to a regular inflection (dataset / datasets, merge / merged, use / using). */
export function sameWordForm(x: string, y: string): boolean {
  if (x === y) return true;
  const fy = formsOf(y);
  for (const f of formsOf(x)) if (fy.has(f)) return true;
  const [short, long] = x.length <= y.length ? [x, y] : [y, x];
  return short.length >= 4 && long.startsWith(short);
}

/**
 * The swapped pair when `a` and `b` have the same words in the same order except at exactly one
 * position, where both words are content words and not forms of one another; otherwise null.
 */
export function oneWordSwap(a: readonly string[], b: readonly string[]): [string, string] | null {
  if (a.length !== b.length) return null;
  let at = -1;
  for (let i = 0; i < a.length; i++) {
    if (a[i] === b[i]) continue;
    if (at >= 0) return null;
    at = i;
  }
  if (at < 0) return null;
  const [x, y] = [a[at]!, b[at]!];
  if (FUNCTION_WORDS.has(x) || FUNCTION_WORDS.has(y) || sameWordForm(x, y)) return null;
  return [x, y];
}
