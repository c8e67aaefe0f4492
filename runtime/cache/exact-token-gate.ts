// The exact gate: a semantic neighbour is only a candidate when the tokens that decide the answer
// (numbers, identifiers, quoted strings, named entities, negation, direction) are the same in both, and
// the content words that differ are explained as paraphrase. Numbers compare by value in any script
// (gate-numbers.ts), negations by cue, scope and count (gate-negation.ts), antonym and quantifier pairs
// from data (gate-opposites.ts, runtime/data/gate-opposites.json), and content words up to inflection and
// a synonym table (gate-content-words.ts, runtime/data/gate-synonyms.json); quantifiers, clock times, units
// and argument order from data (gate-classes.ts, runtime/data/gate-classes.json).
import { argumentSwap, classClash, quantifiersOf, timesOf, unitsOf } from './gate-classes.ts';
import { contentMismatch, contentReading, type ContentWord } from './gate-content-words.ts';
import { numbersOf } from './gate-numbers.ts';
import { negationsOf, sameNegations, type NegationScope } from './gate-negation.ts';
import { oppositesOf, oppositeSwap, type OppositeOccurrences } from './gate-opposites.ts';
import { wordsOf } from './word-forms.ts';

/** The answer-determining tokens of one query. */
export interface GateSignature {
  /** The lower-cased text, for presence checks. */
  lower: string;
  numbers: string[];
  identifiers: string[];
  quoted: string[];
  entities: string[];
  /** Each negation with the word it governs, in order. */
  negations: NegationScope[];
  /** Where the antonym and quantifier pairs' terms occur. */
  opposites: OppositeOccurrences;
  /** Quantifier classes in order (some, most, half_dozen ...). */
  quantifiers: string[];
  /** Clock times as 24-hour HH:MM, sorted. */
  times: string[];
  /** Units named, and those right after a number. */
  units: { units: string[]; measured: string[] };
  /** Ordered (from, to) pairs read from "from A to B", "A to B", "A into B", "A than B". */
  directions: string[];
  /** The lower-cased words in order, read for the content-word checks. */
  words: ContentWord[];
}

/** Why the gate refused a candidate (reported on `cache.miss`). */
export type GateMismatch =
  | 'numbers' | 'times' | 'units' | 'identifiers' | 'quoted' | 'entities' | 'negation' | 'opposites' | 'quantifiers' | 'direction' | 'argument_order' | 'word_swap' | 'content';

// Single quotes only around a phrase (after a space or start, before a space or punctuation), so
// apostrophes ("model's ... dataset's") are not read as quotes.
const QUOTED = /"([^"]+)"|“([^”]+)”|`([^`]+)`|(?<=^|[\s(])'([^'\s][^']*[^'\s])'(?=[\s.,;:!?)]|$)/g;
// Something a programmer typed: snake_case, camelCase, dotted.paths, call(), ALLCAPS, letters+digits.
const IDENTIFIER = /\b(?:[A-Za-z_][\w]*\(\)|[A-Za-z]+_[\w]+|[a-z]+[A-Z][\w]*|[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+|[A-Z]{2,}\d*|[A-Za-z]+\d+[A-Za-z\d]*)\b/g;
const WORD = /[\p{L}][\p{L}\p{N}'-]*/gu;
const STOP_CAPITALISED = new Set([
  'i', 'a', 'an', 'the', 'what', 'which', 'who', 'whom', 'whose', 'when', 'where', 'why', 'how', 'is', 'are', 'was', 'were', 'do', 'does', 'did',
  'can', 'could', 'should', 'would', 'will', 'please', 'tell', 'give', 'list', 'explain', 'describe', 'show', 'write', 'and', 'or', 'but', 'in', 'on',
  'for', 'of', 'to', 'from', 'with', 'by', 'at', 'it', 'this', 'that', 'these', 'those', 'there', 'if', 'then', 'yes', 'no', 'not',
]);
const CONNECTOR = new Set(['to', 'into', 'than', 'vs', 'versus', '->', '→']);
/** Words looked at on each side of a connector for the pair's ends. */
const DIRECTION_WINDOW = 3;

function uniqSorted(xs: Iterable<string>): string[] {
  return [...new Set(xs)].sort();
}

/** Capitalised words that are not sentence-initial and not function words: a cheap named-entity reading. */
function entitiesOf(text: string): string[] {
  const out: string[] = [];
  for (const sentence of text.split(/(?<=[.!?])\s+|\n+/)) {
    const words = sentence.match(WORD) ?? [];
    words.forEach((w, i) => {
      if (i === 0 || !/^\p{Lu}/u.test(w)) return;
      const lower = w.toLowerCase();
      if (!STOP_CAPITALISED.has(lower)) out.push(lower);
    });
  }
  return out;
}

/** Reads the answer-determining tokens of `text`. */
export function gateSignature(text: string): GateSignature {
  const quoted = [...text.matchAll(QUOTED)].map((m) => (m[1] ?? m[2] ?? m[3] ?? m[4] ?? '').trim().toLowerCase());
  const unquoted = text.replace(QUOTED, ' ');
  // A clock time is compared as a time ("9 pm" = "21:00"), so its digits leave the number reading.
  const { times, rest } = timesOf(unquoted);
  const numbers = numbersOf(rest);
  const unquotedWords = wordsOf(unquoted);
  // "p.m." is a time marker, not a dotted identifier: identifiers are read once the times are out.
  const identifiers = (rest.match(IDENTIFIER) ?? []).filter((t) => !/^\d/.test(t)).map((t) => t.toLowerCase());
  const directions = directionsOf(rest, new Set([...entitiesOf(unquoted), ...numbers, ...(rest.match(IDENTIFIER) ?? []).map((t) => t.toLowerCase())]));
  return {
    lower: text.toLowerCase().replace(/[’‘]/g, "'"),
    numbers: uniqSorted(numbers),
    identifiers: uniqSorted(identifiers),
    quoted: uniqSorted(quoted),
    entities: uniqSorted(entitiesOf(unquoted)),
    negations: negationsOf(unquotedWords),
    opposites: oppositesOf(unquotedWords),
    quantifiers: quantifiersOf(unquotedWords),
    times,
    units: unitsOf(wordsOf(rest)),
    directions: uniqSorted(directions),
    words: contentReading(wordsOf(text)),
  };

}

/**
 * Ordered pairs around a connector ("from A to B", "A is faster than B", "A vs B"): the nearest
 * answer-determining token (entity, number, identifier) within three words before and after it.
 */
function directionsOf(text: string, determiners: ReadonlySet<string>): string[] {
  const words = (text.match(/->|→|[\p{L}\p{N}_$€£%][\p{L}\p{N}_.$€£%-]*/gu) ?? []).map((w) => w.toLowerCase().replace(/[.]+$/, ''));
  const out: string[] = [];
  words.forEach((w, i) => {
    if (!CONNECTOR.has(w)) return;
    const before = words.slice(Math.max(0, i - DIRECTION_WINDOW), i).reverse().find((x) => determiners.has(x));
    const after = words.slice(i + 1, i + 1 + DIRECTION_WINDOW).find((x) => determiners.has(x));
    if (before && after && before !== after) out.push(`${before}>${after}`);
  });
  return uniqSorted(out);
}


function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

const ALNUM = /[\p{L}\p{N}_]/u;

/** `token` occurs in `text` with no letter or digit glued to either end. */
function occurs(token: string, text: string): boolean {
  for (let i = text.indexOf(token); i >= 0; i = text.indexOf(token, i + 1)) {
    const before = i > 0 ? text[i - 1]! : ' ';
    const after = text[i + token.length] ?? ' ';
    if (!(ALNUM.test(before) && ALNUM.test(token[0]!)) && !(ALNUM.test(after) && ALNUM.test(token[token.length - 1]!))) return true;
  }
  return false;
}

/** Every token of `tokens` occurs in the other text. */
function allPresent(tokens: readonly string[], other: GateSignature): boolean {
  return tokens.every((t) => occurs(t, other.lower));
}

/**
 * The first field in which the two texts disagree, or null when the gate passes. Numbers must match by
 * value, clock times by time and negations by cue, scope and count; no antonym or quantifier pair may be held the opposite way,
 * nor may each text hold a quantifier class or unit the other lacks; an identifier, quoted string or named entity of either text must occur in the
 * other (a paraphrase may move it, a swapped entity is absent); ordered pairs ("from A to B") must agree, and
 * no two shared content words may trade places around a third ("Alice pays Bob" / "Bob pays Alice");
 * the texts must not be the same content words but k ≥ 1 substituted ones ("numpy with pip" / "pandas with
 * conda"); and each must share at least half its content words with the other (gate-content-words.ts).
 */
export function gateMismatch(a: GateSignature, b: GateSignature): GateMismatch | null {
  if (!sameList(a.numbers, b.numbers)) return 'numbers';
  if (!sameList(a.times, b.times)) return 'times';
  if (!allPresent(a.quoted, b) || !allPresent(b.quoted, a)) return 'quoted';
  if (!allPresent(a.identifiers, b) || !allPresent(b.identifiers, a)) return 'identifiers';
  if (!sameNegations(a.negations, b.negations)) return 'negation';
  if (oppositeSwap(a.opposites, b.opposites)) return 'opposites';
  if (classClash(a.quantifiers, b.quantifiers)) return 'quantifiers';
  if (!allPresent(a.entities, b) || !allPresent(b.entities, a)) return 'entities';
  const reversed = (d: string) => d.split('>').reverse().join('>');
  if (a.directions.some((d) => b.directions.includes(reversed(d)) && !b.directions.includes(d)) || b.directions.some((d) => a.directions.includes(reversed(d)) && !a.directions.includes(d)))
    return 'direction';
  if (classClash(a.units.units, b.units.units) || classClash(a.units.measured, b.units.measured)) return 'units';
  if (argumentSwap(a.words, b.words)) return 'argument_order';
  // The numbers agree by now, so the content-word rules leave numbers out ("3" / "three" is no swap).
  return contentMismatch(a.words, b.words);
}
