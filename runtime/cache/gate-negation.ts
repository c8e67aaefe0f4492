// Negation as the gate compares it: each negation is its cue ("not", "never", "no longer", "without",
// "except", "avoid") and its scope (the content word it governs), and two texts agree only when they hold
// the same negations, counted. A yes/no reading let a moved negation through ("not required when
// enabled" / "required when not enabled") and with/without once a "not" was anywhere in both.
import { formsOf } from './word-forms.ts';

/** One negation: its cue class and the content word it governs (null at the end of the text). */
export interface NegationScope {
  cue: 'not' | 'never' | 'no_longer' | 'without' | 'except' | 'avoid';
  head: string | null;
}

const NOT_WORDS = new Set(['not', 'no', 'none', 'nor', 'neither', 'nothing', 'nobody', 'nowhere', 'cannot', 'lack', 'lacks', 'lacking', 'lacked', 'absence', 'non']);
/** Contractions written without an apostrophe, as people type them. */
const BARE_CONTRACTIONS = new Set(['dont', 'doesnt', 'didnt', 'isnt', 'arent', 'wasnt', 'werent', 'cant', 'couldnt', 'shouldnt', 'wouldnt', 'wont', 'hasnt', 'havent', 'hadnt', 'mustnt', 'neednt', 'aint']);
const EXCEPT_WORDS = new Set(['except', 'excluding', 'unless', 'excepting']);
const AVOID_WORDS = new Set(['avoid', 'avoids', 'avoiding', 'prevent', 'prevents', 'preventing']);
/** Words between a cue and what it governs: auxiliaries, determiners, pronouns, degree adverbs. */
const SKIP = new Set([
  'a', 'an', 'the', 'any', 'some', 'my', 'your', 'our', 'their', 'its', 'his', 'her', 'this', 'that', 'these', 'those', 'it', 'them', 'me', 'us', 'you',
  'be', 'been', 'being', 'is', 'are', 'was', 'were', 'am', 'do', 'does', 'did', 'have', 'has', 'had', 'get', 'gets', 'got',
  'can', 'could', 'should', 'would', 'will', 'shall', 'may', 'might', 'must', 'to', 'of', 'yet', 'even', 'really', 'very', 'so', 'too', 'also', 'ever', 'at', 'all',
  'i', 'we', 'they', 'he', 'she', 'one', 'using', 'use', 'with', 'having',
]);
/** "no more than" and kin are quantifiers (the opposites list reads them), not negations. */
const QUANTIFIER_AFTER_NO = new Set(['more', 'less', 'fewer']);

function cueOf(words: readonly string[], i: number): { cue: NegationScope['cue']; next: number } | null {
  const w = words[i]!;
  if ((w === 'no' || w === 'not') && QUANTIFIER_AFTER_NO.has(words[i + 1] ?? '') && words[i + 2] === 'than') return null;
  if (w === 'no' && words[i + 1] === 'longer') return { cue: 'no_longer', next: i + 2 };
  if (w === 'not' && words[i + 1] === 'anymore') return { cue: 'no_longer', next: i + 2 };
  if (w === 'never') return { cue: 'never', next: i + 1 };
  if (w === 'without') return { cue: 'without', next: i + 1 };
  if (EXCEPT_WORDS.has(w) || (w === 'other' && words[i + 1] === 'than')) return { cue: 'except', next: w === 'other' ? i + 2 : i + 1 };
  if (AVOID_WORDS.has(w)) return { cue: 'avoid', next: i + 1 };
  if (NOT_WORDS.has(w) || BARE_CONTRACTIONS.has(w) || /n't$/.test(w)) return { cue: 'not', next: i + 1 };
  if (w.startsWith('non-')) return { cue: 'not', next: i };
  return null;
}

/** The negations of `words` (lower-cased, in order, as `wordsOf` gives them), each with its scope head. */
export function negationsOf(words: readonly string[]): NegationScope[] {
  const out: NegationScope[] = [];
  for (let i = 0; i < words.length; i++) {
    const c = cueOf(words, i);
    if (!c) continue;
    let head: string | null = null;
    if (c.next === i) head = words[i]!.replace(/^non-/, '');
    else
      for (let j = c.next; j < words.length; j++) {
        const w = words[j]!;
        if (SKIP.has(w) || cueOf(words, j)?.cue === 'not') continue;
        head = w;
        break;
      }
    out.push({ cue: c.cue, head });
  }
  return out;
}

function sameHead(x: string | null, y: string | null): boolean {
  if (x === null || y === null) return x === y;
  if (x === y) return true;
  const fy = formsOf(y);
  for (const f of formsOf(x)) if (fy.has(f)) return true;
  return false;
}

/** True when the two texts hold the same negations: equal counts, each cue with the same scope. */
export function sameNegations(a: readonly NegationScope[], b: readonly NegationScope[]): boolean {
  if (a.length !== b.length) return false;
  const used = new Array<boolean>(b.length).fill(false);
  return a.every((n) => {
    const k = b.findIndex((m, j) => !used[j] && m.cue === n.cue && sameHead(m.head, n.head));
    if (k < 0) return false;
    used[k] = true;
    return true;
  });
}
