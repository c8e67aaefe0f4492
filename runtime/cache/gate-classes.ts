// Word classes the gate reads as data (runtime/data/gate-classes.json): quantifiers ("some" / "most",
// "a dozen" / "half a dozen"), clock times ("9 am" / "9 pm" / "21:00"), units of measure ("5 km" / "5
// miles") and argument order ("Alice pays Bob" / "Bob pays Alice"). Each is invisible to the number,
// negation and opposite readings, and an embedding puts the two texts of such a pair very close.
import { fileURLToPath } from 'node:url';
import { validatorFor } from '../core/schemas.ts';
import { DataFileError, loadYamlValidated } from '../core/yaml-document.ts';
import type { GateClasses } from '../../schemas/types/gate-classes.ts';
import { sameContent, type ContentWord } from './gate-content-words.ts';
import { asciiNumerals, isNumberToken } from './gate-numbers.ts';
import { formsOf } from './word-forms.ts';

/** The shipped class file. */
export const DEFAULT_CLASSES_PATH = fileURLToPath(new URL('../data/gate-classes.json', import.meta.url));

/** Phrases by their first word, longest first, each with the class it stands for. */
type PhraseIndex = Map<string, { words: string[]; value: string }[]>;

/** A compiled class file. */
export interface GateClassList {
  quantifiers: PhraseIndex;
  units: PhraseIndex;
  /** Matches a clock time with an am/pm marker: hour, minutes, marker. */
  clock: RegExp;
  pmMarkers: ReadonlySet<string>;
  named: ReadonlyMap<string, string>;
  symmetric: ReadonlySet<string>;
  passiveMarkers: ReadonlySet<string>;
}

/** Loads and validates a class file; errors name the file, line and field. A term in two classes is refused. */
export function loadGateClasses(path: string = DEFAULT_CLASSES_PATH): GateClassList {
  const file = loadYamlValidated<GateClasses>(path, validatorFor<GateClasses>('gate-classes.schema.json'));
  return compileGateClasses(file, path);
}

function phraseIndex(groups: readonly { name: string; terms: string[] }[], field: string, path: string): PhraseIndex {
  const owner = new Map<string, string>();
  const index: PhraseIndex = new Map();
  groups.forEach((g, i) => {
    for (const t of g.terms) {
      const seen = owner.get(t);
      if (seen !== undefined && seen !== g.name) throw new DataFileError(path, null, null, `${field}[${i}] (${g.name}): "${t}" is also in ${seen}; keep it in one`);
      owner.set(t, g.name);
      const words = t.split(' ');
      const list = index.get(words[0]!) ?? [];
      list.push({ words, value: g.name });
      index.set(words[0]!, list);
    }
  });
  for (const list of index.values()) list.sort((x, y) => y.words.length - x.words.length);
  return index;
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Compiles a validated class file. */
export function compileGateClasses(file: GateClasses, path = '(inline)'): GateClassList {
  const markers = [...file.times.am, ...file.times.pm].sort((x, y) => y.length - x.length);
  const clash = file.times.am.find((m) => file.times.pm.includes(m));
  if (clash) throw new DataFileError(path, null, null, `times: "${clash}" is both an am and a pm marker; keep it in one`);
  return {
    quantifiers: phraseIndex(file.quantifiers, 'quantifiers', path),
    units: phraseIndex(file.units, 'units', path),
    // An hour with optional minutes, then a marker ("9 pm", "9:30pm", "11 a.m."), not glued to a word on either side.
    clock: new RegExp(`(?<![\\p{L}\\p{N}_:.])(\\d{1,2})(?::([0-5]\\d))?\\s*(${markers.map(escape).join('|')})(?![\\p{L}\\p{N}_])`, 'giu'),
    pmMarkers: new Set(file.times.pm),
    named: new Map(file.times.named.map((n) => [n.term, n.time])),
    symmetric: new Set(file.argument_order.symmetric),
    passiveMarkers: new Set(file.argument_order.passive_markers),
  };
}

let shipped: GateClassList | null = null;

/** The shipped classes, loaded once. */
export function defaultGateClasses(): GateClassList {
  return (shipped ??= loadGateClasses());
}

/** The classes of the phrases of `words` (lower-cased, in order), longest phrase first, each word read once. */
function phrasesOf(words: readonly string[], index: PhraseIndex): { value: string; start: number; length: number }[] {
  const out: { value: string; start: number; length: number }[] = [];
  for (let i = 0; i < words.length; ) {
    const hit = (index.get(words[i]!) ?? []).find((e) => e.words.every((w, j) => words[i + j] === w));
    if (!hit) {
      i++;
      continue;
    }
    out.push({ value: hit.value, start: i, length: hit.words.length });
    i += hit.words.length;
  }
  return out;
}

/**
 * True when each list holds something the other lacks, counted: one text gained a member of the class
 * and the other gained another. Dropping or adding one ("some users" / "users") is a rewording.
 */
export function classClash(a: readonly string[], b: readonly string[]): boolean {
  const left = (xs: readonly string[], ys: readonly string[]) => {
    const rest = [...ys];
    return xs.some((x) => {
      const k = rest.indexOf(x);
      if (k < 0) return true;
      rest.splice(k, 1);
      return false;
    });
  };
  return left(a, b) && left(b, a);
}

/** The quantifier classes of `words` in order ("half a dozen" is half_dozen, not dozen). */
export function quantifiersOf(words: readonly string[], list: GateClassList = defaultGateClasses()): string[] {
  return phrasesOf(words, list.quantifiers).map((p) => p.value);
}

/** The clock times of `text` as 24-hour HH:MM, sorted, and the text with each digit time blanked (so its digits are no longer numbers). */
export function timesOf(text: string, list: GateClassList = defaultGateClasses()): { times: string[]; rest: string } {
  const times: string[] = [];
  const pad = (n: number) => String(n).padStart(2, '0');
  let rest = asciiNumerals(text).replace(list.clock, (all, h: string, m: string | undefined, marker: string) => {
    const hour = Number(h);
    if (hour < 1 || hour > 12) return all;
    const pm = list.pmMarkers.has(marker.toLowerCase());
    times.push(`${pad((hour % 12) + (pm ? 12 : 0))}:${m ?? '00'}`);
    return ' ';
  });
  rest = rest.replace(/(?<![\p{L}\p{N}_:.])([01]?\d|2[0-3]):([0-5]\d)(?![\p{L}\p{N}_:])/gu, (_all, h: string, m: string) => {
    times.push(`${pad(Number(h))}:${m}`);
    return ' ';
  });
  for (const w of rest.toLowerCase().match(/\p{L}+/gu) ?? []) {
    const t = list.named.get(w);
    if (t) times.push(t);
  }
  return { times: times.sort(), rest };
}

/** The units of `words`: every unit named, and those right after a number ("5 km": measured). */
export function unitsOf(words: readonly string[], list: GateClassList = defaultGateClasses()): { units: string[]; measured: string[] } {
  const found = phrasesOf(words, list.units);
  const isNumber = (w: string | undefined) => w !== undefined && (/^[\d.,]+$/.test(w) || isNumberToken(w));
  return { units: found.map((u) => u.value), measured: found.filter((u) => isNumber(words[u.start - 1])).map((u) => u.value) };
}

/** `w` or an inflection of it is in `set`. */
function inSet(w: string, set: ReadonlySet<string>): boolean {
  for (const f of formsOf(w)) if (set.has(f)) return true;
  return false;
}

/**
 * True when the texts share content words x, v, y that `a` holds in the order x v y and `b` in the order
 * y v x: the content words right beside v traded places ("Alice pays Bob" / "Bob pays Alice"). Both texts must be the same
 * content words, each found once in each text, reordered; a symmetric middle word ("meets", "and") or a passive in one text only ("Bob is paid
 * by Alice") is no swap.
 */
export function argumentSwap(a: readonly ContentWord[], b: readonly ContentWord[], list: GateClassList = defaultGateClasses()): boolean {
  const passives = (ws: readonly ContentWord[]) => ws.filter((w) => list.passiveMarkers.has(w.word)).length;
  if (passives(a) !== passives(b)) return false;
  const content = (ws: readonly ContentWord[]) => ws.map((w, i) => ({ w, i })).filter((x) => !x.w.function && !x.w.number);
  const ca = content(a);
  const cb = content(b);
  // Content words matched one to one: (position in a, position in b), in the order of a.
  const pairs: { word: string; j: number }[] = [];
  for (const x of ca) {
    const inB = cb.filter((y) => sameContent(x.w, y.w));
    if (inB.length !== 1 || ca.filter((z) => sameContent(z.w, inB[0]!.w)).length !== 1) continue;
    pairs.push({ word: x.w.word, j: inB[0]!.i });
  }
  // Only a reordering of the same content words: a rewording that adds or drops one is another sentence, not a swap.
  if (pairs.length !== ca.length || pairs.length !== cb.length) return false;
  for (let q = 1; q < pairs.length - 1; q++) {
    const v = pairs[q]!;
    if (inSet(v.word, list.symmetric)) continue;
    // The content words right beside v traded sides: x v y in a, y v x in b. Blocks of words moved
    // about a noun ("the price and storage of the plans" / "the plans: storage and price") are a rewording.
    const x = pairs[q - 1]!;
    const y = pairs[q + 1]!;
    const nextInB = (j: number) => Math.min(...pairs.filter((p) => p.j > j).map((p) => p.j));
    const prevInB = (j: number) => Math.max(...pairs.filter((p) => p.j < j).map((p) => p.j));
    if (x.j === nextInB(v.j) && y.j === prevInB(v.j)) return true;
  }
  return false;
}
