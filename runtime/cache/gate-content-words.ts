// Content words as the gate compares them. An embedding puts "install numpy with conda" and "install pandas
// with pip" close (most tokens shared), and two unrelated questions can reach a low threshold; neither
// holds a number, entity or pair term the other readings see. So the gate also asks whether the content
// words that differ are explained as paraphrase: the same word inflected, a synonym from a table kept as
// data (runtime/data/gate-synonyms.json), a function word, or a number (compared by value elsewhere).
// Two rules follow:
// - swap: the texts are the same words in order except k ≥ 1 content words each replaced by one other word
//   (function words may change around them), nothing added or dropped: a change of subject ("numpy with
//   pip" → "pandas with conda"), not a rewording;
// - share: each text must find at least half of its distinct content words in the other (up to inflection
//   and synonyms); a candidate that shares less asks about something else, whatever the cosine says.
import { fileURLToPath } from 'node:url';
import { validatorFor } from '../core/schemas.ts';
import { DataFileError, loadYamlValidated } from '../core/yaml-document.ts';
import type { GateSynonyms } from '../../schemas/types/gate-synonyms.ts';
import { isNumberToken } from './gate-numbers.ts';
import { defaultOpposites, oppositeTermsOf, type OppositeList } from './gate-opposites.ts';
import { formsOf } from './word-forms.ts';

/** The shipped synonym table. */
export const DEFAULT_SYNONYMS_PATH = fileURLToPath(new URL('../data/gate-synonyms.json', import.meta.url));

/** The least share of a text's distinct content words that must occur in the other (see the header). */
export const MIN_CONTENT_SHARE = 0.5;

/** Above this many words on a side the swap rule is skipped (its alignment is quadratic); the share rule still applies. */
const MAX_ALIGNED = 200;

/**
 * Function words, question framing and negation cues: changing one is not a change of subject. Negations,
 * numbers and antonym pairs have their own readings, so here they only need to be left out.
 */
export const FUNCTION_WORDS: ReadonlySet<string> = new Set([
  'a', 'an', 'the', 'this', 'that', 'these', 'those', 'some', 'any', 'each', 'every', 'all', 'both', 'either', 'neither', 'such', 'other', 'another', 'same',
  'i', 'me', 'my', 'mine', 'we', 'us', 'our', 'you', 'your', 'yours', 'it', 'its', 'they', 'them', 'their', 'he', 'him', 'she', 'his', 'her', 'one', 'ones', 'itself', 'themselves', 'yourself', 'oneself',
  'is', 'are', 'was', 'were', 'be', 'been', 'being', 'am', 'do', 'does', 'did', 'done', 'doing', 'have', 'has', 'had', 'having',
  'can', 'could', 'should', 'would', 'will', 'shall', 'may', 'might', 'must', 'ought',
  'what', 'which', 'who', 'whom', 'whose', 'when', 'where', 'why', 'how', 'whether', 'whatever', 'whichever',
  'in', 'on', 'at', 'of', 'for', 'to', 'from', 'with', 'using', 'by', 'about', 'into', 'onto', 'over', 'via', 'per', 'as', 'through', 'throughout', 'within', 'across', 'along', 'among', 'between', 'upon', 'towards', 'toward', 'around', 'against', 'during', 'until', 'while', 'since', 'like', 'unlike', 'rather', 'instead',
  'and', 'or', 'but', 'so', 'if', 'then', 'than', 'also', 'just', 'only', 'please', 'there', 'here', 'thus', 'therefore', 'however', 'hence', 'yet', 'still', 'too', 'very', 'really', 'quite', 'even', 'already', 'again', 'well', 'much', 'many', 'lot', 'lots', 'own',
  'not', 'no', 'nor', 'never', 'without', 'none', 'cannot',
  // Framing: how a question is asked, not what about.
  'way', 'ways', 'steps', 'explain', 'describe', 'tell', 'know', 'want', 'wish', 'need', 'needs', 'able', 'possible', 'something', 'anything',
]);

/** A word that says nothing about what is asked: a function word (also as a contraction, "what's", "don't"), a number or a lone letter. */
export function isFunctionWord(w: string): boolean {
  if (FUNCTION_WORDS.has(w) || w.length < 2 || /n'?t$/.test(w) && FUNCTION_WORDS.has(w.replace(/n'?t$/, '')) || isNumberToken(w)) return true;
  const stem = w.replace(/'(s|re|ve|ll|d|m)$/, '');
  return stem !== w && FUNCTION_WORDS.has(stem);
}

/** A compiled synonym table: each word to its group. */
export interface SynonymTable {
  groupOf: ReadonlyMap<string, number>;
}

/** Loads and validates a synonym file; errors name the file and field. A word in two groups is refused (synonymy must be one partition). */
export function loadSynonyms(path: string = DEFAULT_SYNONYMS_PATH): SynonymTable {
  const file = loadYamlValidated<GateSynonyms>(path, validatorFor<GateSynonyms>('gate-synonyms.schema.json'));
  return compileSynonyms(file, path);
}

/** Compiles a validated synonym file. */
export function compileSynonyms(file: GateSynonyms, path = '(inline)'): SynonymTable {
  const groupOf = new Map<string, number>();
  file.groups.forEach((g, i) => {
    for (const w of g.words) {
      const seen = groupOf.get(w);
      if (seen !== undefined && seen !== i) throw new DataFileError(path, null, null, `groups[${i}]: "${w}" is also in groups[${seen}]; keep it in one group`);
      groupOf.set(w, i);
    }
  });
  return { groupOf };
}

let shipped: SynonymTable | null = null;

/** The shipped table, loaded once. */
export function defaultSynonyms(): SynonymTable {
  return (shipped ??= loadSynonyms());
}

/** Two content words with one meaning: equal, one an inflection of the other, typed with and without an apostrophe, or synonyms in the table (or on one side of an antonym pair). */
export function sameTerm(x: string, y: string, table: SynonymTable = defaultSynonyms()): boolean {
  const [rx, ry] = contentReading([x, y], table);
  return sameContent(rx!, ry!);
}

/** Why two texts' content words disagree: substituted words with nothing else reworded, or too little shared. */
export type ContentMismatch = 'word_swap' | 'content';

/** One word of a text as the content rules compare it, read once per text. */
export interface ContentWord {
  word: string;
  /** A function word, number or lone letter (see isFunctionWord). */
  function: boolean;
  /** Part of a number (compared by value elsewhere, so any two match here). */
  number: boolean;
  /** The word and the bases it may be an inflection of. */
  forms: ReadonlySet<string>;
  /**
   * Its meanings as data knows them: its synonym group, and each antonym-pair side a term covering it stands
   * for (a side lists terms of one meaning: "at least" / "no fewer than", "increase" / "raise").
   */
  senses: ReadonlySet<string>;
}

/** Reads the words of one text (lower-cased, in order) for `contentMismatch`. */
export function contentReading(words: readonly string[], table: SynonymTable = defaultSynonyms(), opposites: OppositeList = defaultOpposites()): ContentWord[] {
  const senses = words.map(() => new Set<string>());
  for (const term of oppositeTermsOf(words, opposites))
    for (let i = term.start; i < term.start + term.length; i++) for (const { pair, side } of term.sides) senses[i]!.add(`pair ${pair} side ${side}`);
  return words.map((word, i) => {
    const forms = formsOf(word);
    for (const f of forms) {
      const group = table.groupOf.get(f);
      if (group !== undefined) {
        senses[i]!.add(`synonyms ${group}`);
        break;
      }
    }
    return { word, function: isFunctionWord(word), number: isNumberToken(word), forms, senses: senses[i]! };
  });
}

/** Two content words with one meaning (as `sameTerm`, on words already read). */
export function sameContent(x: ContentWord, y: ContentWord): boolean {
  if (x.word === y.word || x.word.replace(/'/g, '') === y.word.replace(/'/g, '')) return true;
  for (const s of x.senses) if (y.senses.has(s)) return true;
  for (const f of x.forms) if (y.forms.has(f)) return true;
  const [short, long] = x.word.length <= y.word.length ? [x.word, y.word] : [y.word, x.word];
  return short.length >= 4 && long.startsWith(short);
}

/** Two words aligned by the swap rule: content words with one meaning, or (when `functionAnchors`) the same function word. Numbers never anchor. */
function aligned(x: ContentWord, y: ContentWord, functionAnchors: boolean): boolean {
  if (x.function || y.function) return functionAnchors && !x.number && x.word === y.word;
  return sameContent(x, y);
}

/** One run of unaligned words between two aligned ones. */
interface Gap {
  a: ContentWord[];
  b: ContentWord[];
}

/**
 * The unaligned runs of a heaviest common subsequence of `a` and `b`. An aligned content word outweighs any
 * number of aligned function words; with `functionAnchors` off, function words never align.
 */
function gapsOf(a: readonly ContentWord[], b: readonly ContentWord[], functionAnchors: boolean): Gap[] {
  const n = a.length;
  const m = b.length;
  const weight = (x: ContentWord) => (x.function ? 1 : MAX_ALIGNED + 1);
  const pairs = (i: number, j: number) => aligned(a[i]!, b[j]!, functionAnchors);
  // best[i][j]: the weight of a heaviest common subsequence of a[i..] and b[j..].
  const best = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--) best[i]![j] = Math.max(best[i + 1]![j]!, best[i]![j + 1]!, pairs(i, j) ? best[i + 1]![j + 1]! + weight(a[i]!) : 0);
  const gaps: Gap[] = [];
  let gap: Gap = { a: [], b: [] };
  const close = () => {
    if (gap.a.length || gap.b.length) gaps.push(gap);
    gap = { a: [], b: [] };
  };
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && pairs(i, j) && best[i]![j] === best[i + 1]![j + 1]! + weight(a[i]!)) {
      close();
      i++;
      j++;
    } else if (j >= m || (i < n && best[i + 1]![j]! >= best[i]![j + 1]!)) gap.a.push(a[i++]!);
    else gap.b.push(b[j++]!);
  }
  close();
  return gaps;
}

/**
 * True when `a` and `b` are the same content words in order except k ≥ 1 runs where one content word stands
 * for one with no shared meaning (function words around it may differ), and no content word was only added
 * or dropped. A run of several content words on each side is read as a rewording, not as swaps.
 */
function swapsOnly(a: readonly ContentWord[], b: readonly ContentWord[], functionAnchors: boolean): boolean {
  let swaps = 0;
  for (const g of gapsOf(a, b, functionAnchors)) {
    const ca = g.a.filter((w) => !w.function).length;
    const cb = g.b.filter((w) => !w.function).length;
    if (ca === 0 && cb === 0) continue;
    if (ca !== 1 || cb !== 1) return false;
    swaps++;
  }
  return swaps > 0;
}

/** The share of the distinct content words of `xs` that have the same term among `ys`. */
function shareIn(xs: readonly ContentWord[], ys: readonly ContentWord[]): number {
  const distinct = [...new Map(xs.map((x) => [x.word, x])).values()];
  if (!distinct.length) return 1;
  return distinct.filter((x) => ys.some((y) => sameContent(x, y))).length / distinct.length;
}

/**
 * Whether two texts (read by `contentReading`) disagree beyond paraphrase: `word_swap` when they are the
 * same words in order except k ≥ 1 content words each replaced by one with no shared meaning (inflection
 * or synonym), whatever function words changed around them; `content` when either text finds under
 * `minShare` of its distinct content words in the other. Null when neither.
 */
export function contentMismatch(a: readonly ContentWord[], b: readonly ContentWord[], minShare = MIN_CONTENT_SHARE): ContentMismatch | null {
  // Any of the readings showing only swaps refuses: anchored on shared function words too ("numpy with conda"
  // / "pandas with pip": two swaps) or on content words alone ("via osaka for" / "with socket via": one), each
  // both ways round (ties break one way), so the verdict is symmetric.
  const readings = [true, false].flatMap((anchors) => [() => swapsOnly(a, b, anchors), () => swapsOnly(b, a, anchors)]);
  if (a.length <= MAX_ALIGNED && b.length <= MAX_ALIGNED && readings.some((swapped) => swapped())) return 'word_swap';
  const ca = a.filter((w) => !w.function);
  const cb = b.filter((w) => !w.function);
  if (shareIn(ca, cb) <= minShare || shareIn(cb, ca) <= minShare) return 'content';
  return null;
}
