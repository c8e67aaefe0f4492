// Words as the gate compares them: lower-cased, in order, and equal up to a regular inflection
// (dataset / datasets, merge / merged, use / using), so a paraphrase that inflects a word is not a change.

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
