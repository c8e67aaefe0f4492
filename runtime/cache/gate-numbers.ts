// Numbers as the gate compares them: by value, whatever script or form wrote them. "three weeks",
// "3 weeks", "٣ weeks" and "３ weeks" read 3; "−5", "minus 5" and "negative five" read -5; "2 million"
// and "two million" read 2000000. Without this a number word, a Unicode minus or a non-ASCII digit was
// invisible to the gate, and a query that changed it was served the other query's answer.
import { Decimal } from 'decimal.js';

const UNITS: Readonly<Record<string, number>> = {
  zero: 0, one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10,
  eleven: 11, twelve: 12, thirteen: 13, fourteen: 14, fifteen: 15, sixteen: 16, seventeen: 17, eighteen: 18, nineteen: 19,
};
const TENS: Readonly<Record<string, number>> = { twenty: 20, thirty: 30, forty: 40, fifty: 50, sixty: 60, seventy: 70, eighty: 80, ninety: 90 };
/** Words that multiply what precedes them within one number ("two hundred", "a dozen"). */
const MULTIPLIERS: Readonly<Record<string, number>> = { hundred: 100, dozen: 12 };
/** Words that close a group of a number ("three thousand five hundred"). */
const SCALES: Readonly<Record<string, string>> = { thousand: '1e3', million: '1e6', billion: '1e9', trillion: '1e12' };
const SIGN_WORDS = new Set(['minus', 'negative']);
/** Signs other than ASCII: U+2212 minus, small and fullwidth hyphen-minus; fullwidth plus. */
const MINUS_SIGNS = /[\u2212\uFE63\uFF0D]/g;
const PLUS_SIGNS = /[\uFF0B]/g;

const digitValues = new Map<string, number>();
const ND = /\p{Nd}/u;

/** The value of a Unicode decimal digit: Unicode lays every digit set out as runs of ten from 0. */
function digitValue(ch: string): number {
  let v = digitValues.get(ch);
  if (v === undefined) {
    const cp = ch.codePointAt(0)!;
    let k = 0;
    while (ND.test(String.fromCodePoint(cp - k - 1))) k++;
    v = k % 10;
    digitValues.set(ch, v);
  }
  return v;
}

/** `text` with every decimal digit, sign, percent and in-number separator in ASCII. */
export function asciiNumerals(text: string): string {
  return text
    .replace(/\p{Nd}/gu, (d) => (d >= '0' && d <= '9' ? d : String(digitValue(d))))
    .replace(MINUS_SIGNS, '-')
    .replace(PLUS_SIGNS, '+')
    .replace(/[\u066A\uFF05]/g, '%')
    .replace(/(?<=\d)[\u066B\uFF0E](?=\d)/g, '.')
    .replace(/(?<=\d)[\u066C\uFF0C](?=\d)/g, ',');
}

type Token = { kind: 'num'; raw: string; suffix: string } | { kind: 'word'; w: string } | { kind: 'other'; ch: string; glued: boolean };

const TOKEN = /(?<![\p{L}_\d])([-+]?)(\d+(?:[.,]\d+)*)(%|st|nd|rd|th)?(?![\p{L}\d])|[\p{L}]+|[^\s\p{L}\d]/gu;

const HYPHENATED = new RegExp(`\\b(${Object.keys(TENS).join('|')})-(${Object.keys(UNITS).filter((u) => UNITS[u]! > 0 && UNITS[u]! < 10).join('|')})\\b`, 'gi');

function tokens(source: string): Token[] {
  const out: Token[] = [];
  const text = source.replace(HYPHENATED, '$1 $2');
  for (const m of text.matchAll(TOKEN)) {
    if (m[2] !== undefined) {
      // A sign belongs to the number only when nothing is glued before it ("5-10" is a range, not -10).
      const at = m.index;
      const glued = at > 0 && /[\p{L}\p{N}_]/u.test(text[at - 1]!);
      const sign = m[1] === '-' && !glued ? '-' : '';
      out.push({ kind: 'num', raw: sign + m[2], suffix: m[3] ?? '' });
    } else if (/^\p{L}/u.test(m[0])) out.push({ kind: 'word', w: m[0].toLowerCase() });
    else out.push({ kind: 'other', ch: m[0], glued: m.index > 0 && /[\p{L}\p{N}_]/u.test(text[m.index - 1]!) });
  }
  return out;
}

/** A literal as written, less thousands separators and a plus sign ("3.10" stays "3.10": versions differ). */
function literal(raw: string): string {
  return raw.replace(/,(?=\d{3}(?!\d))/g, '').replace(/^\+/, '');
}

function isNumberWord(t: Token | undefined): boolean {
  return t?.kind === 'word' && (Object.hasOwn(UNITS, t.w) || Object.hasOwn(TENS, t.w));
}

function isScale(t: Token | undefined): t is { kind: 'word'; w: string } {
  return t?.kind === 'word' && (Object.hasOwn(SCALES, t.w) || Object.hasOwn(MULTIPLIERS, t.w));
}

/**
 * Reads a run of number words from `i`: "twenty one", "two hundred and five", "three thousand", "a dozen".
 * Returns the value and the index after it, or null when no number starts at `i`. A lone "one" is not
 * read ("which one", "one of"): it is a pronoun far more often than a count.
 */
function readWords(ts: readonly Token[], i: number): { value: Decimal; end: number } | null {
  let total = new Decimal(0);
  let group = new Decimal(0);
  // What the previous word was decides what may follow it ("twenty one" adds, "five six" is two numbers).
  let last: 'start' | 'a' | 'unit' | 'tens' | 'multiplier' | 'scale' | 'and' = 'start';
  let words = 0;
  let j = i;
  for (; j < ts.length; j++) {
    const t = ts[j]!;
    if (t.kind !== 'word') break;
    const w = t.w;
    if (w === 'a' && last === 'start' && isScale(ts[j + 1])) {
      group = new Decimal(1);
      last = 'a';
      continue;
    }
    if (w === 'and' && (last === 'multiplier' || last === 'scale') && isNumberWord(ts[j + 1])) {
      last = 'and';
      continue;
    }
    if (Object.hasOwn(UNITS, w)) {
      if (!(last === 'start' || last === 'multiplier' || last === 'scale' || last === 'and' || (last === 'tens' && UNITS[w]! < 10 && UNITS[w]! > 0))) break;
      group = group.plus(UNITS[w]!);
      last = 'unit';
    } else if (Object.hasOwn(TENS, w)) {
      if (!(last === 'start' || last === 'multiplier' || last === 'scale' || last === 'and')) break;
      group = group.plus(TENS[w]!);
      last = 'tens';
    } else if (Object.hasOwn(MULTIPLIERS, w)) {
      if (!(last === 'unit' || last === 'tens' || last === 'a')) break;
      group = group.times(MULTIPLIERS[w]!);
      last = 'multiplier';
    } else if (Object.hasOwn(SCALES, w)) {
      if (!(last === 'unit' || last === 'tens' || last === 'a' || last === 'multiplier')) break;
      total = total.plus(group.times(SCALES[w]!));
      group = new Decimal(0);
      last = 'scale';
    } else break;
    words++;
  }
  // A trailing "and" or "a" is not part of the number.
  while (j > i && ts[j - 1]?.kind === 'word' && ['and', 'a'].includes((ts[j - 1] as { w: string }).w)) j--;
  if (!words) return null;
  const only = ts[i]!;
  if (words === 1 && only.kind === 'word' && only.w === 'one') return null;
  return { value: total.plus(group), end: j };
}

/** A word that only writes part of a number: digits, a number, sign or scale word ("000", "three", "minus", "thousand"). */
export function isNumberToken(word: string): boolean {
  const w = asciiNumerals(word).toLowerCase();
  return /^\d+$/.test(w) || Object.hasOwn(UNITS, w) || Object.hasOwn(TENS, w) || Object.hasOwn(SCALES, w) || Object.hasOwn(MULTIPLIERS, w) || SIGN_WORDS.has(w) || w === 'percent';
}

/**
 * The numbers of `text` as canonical strings, in order: number words and scale words are evaluated,
 * every digit script and sign read as ASCII, "minus"/"negative" before a number (not between two) is a
 * sign, and "percent" after one is "%". Literals keep their written form otherwise ("3.10" is not "3.1").
 */
export function numbersOf(text: string): string[] {
  const ts = tokens(asciiNumerals(text));
  const out: string[] = [];
  let prevNumber = false;
  for (let i = 0; i < ts.length; ) {
    const t = ts[i]!;
    let negative = false;
    let k = i;
    // "minus 5" is a sign; "7 minus 5" is an operator (the plus/minus pair covers it). "−two" is a sign too.
    const next = ts[i + 1];
    const signWord = t.kind === 'word' && SIGN_WORDS.has(t.w) && !prevNumber;
    const signChar = t.kind === 'other' && t.ch === '-' && !t.glued;
    if ((signWord && (next?.kind === 'num' || isNumberWord(next) || (next?.kind === 'word' && next.w === 'a'))) || (signChar && isNumberWord(next))) {
      negative = true;
      k = i + 1;
    }
    const at = ts[k]!;
    let value: string | null = null;
    let end = k + 1;
    if (at.kind === 'num') {
      let v = literal(at.raw);
      if (isScale(ts[k + 1]) && !at.suffix) {
        // "3 million", "1.5 thousand": a value, so it equals "three million".
        let d = new Decimal(v.replace(/,/g, '.'));
        while (isScale(ts[end])) {
          const w = (ts[end] as { w: string }).w;
          d = d.times(SCALES[w] ?? MULTIPLIERS[w]!);
          end++;
        }
        v = d.toFixed();
      }
      value = v + at.suffix;
    } else {
      const read = readWords(ts, k);
      if (read) {
        value = read.value.toFixed();
        end = read.end;
      }
    }
    if (value === null) {
      prevNumber = false;
      i++;
      continue;
    }
    const after = ts[end];
    if (after?.kind === 'word' && after.w === 'percent') {
      value += '%';
      end++;
    } else if (after?.kind === 'word' && after.w === 'per' && ts[end + 1]?.kind === 'word' && (ts[end + 1] as { w: string }).w === 'cent') {
      value += '%';
      end += 2;
    }
    if (negative && !value.startsWith('-')) value = `-${value}`;
    if (value.startsWith('-0') && /^-0(?:\.0+)?%?$/.test(value)) value = value.slice(1);
    out.push(value);
    prevNumber = true;
    i = end;
  }
  return out;
}
