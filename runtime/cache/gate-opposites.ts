// Antonym and quantifier pairs (runtime/data/gate-opposites.json) as the gate checks them: when one text
// gained a term of one side of a pair and the other gained a term of the opposite side, they ask opposite
// questions, whatever else was reworded ("increase the pool size quickly" / "decrease the pool size fast").
// Counting changes rather than requiring the same terms lets a paraphrase drop or keep a term freely.
import { fileURLToPath } from 'node:url';
import { validatorFor } from '../core/schemas.ts';
import { DataFileError, loadYamlValidated } from '../core/yaml-document.ts';
import type { GateOpposites } from '../../schemas/types/gate-opposites.ts';
import { formsOf } from './word-forms.ts';

/** The shipped pair list. */
export const DEFAULT_OPPOSITES_PATH = fileURLToPath(new URL('../data/gate-opposites.json', import.meta.url));

/** A compiled pair list: each term (a word sequence) to the pair sides it stands for. */
export interface OppositeList {
  names: string[];
  /** Terms by their first word, longest first. */
  byFirst: Map<string, { words: string[]; sides: { pair: number; side: 0 | 1 }[] }[]>;
}

/** Loads and validates a pair file; errors name the file, line and field. A term on both sides of one pair is refused. */
export function loadOpposites(path: string = DEFAULT_OPPOSITES_PATH): OppositeList {
  const file = loadYamlValidated<GateOpposites>(path, validatorFor<GateOpposites>('gate-opposites.schema.json'));
  return compileOpposites(file, path);
}

/** Compiles a validated pair list. */
export function compileOpposites(file: GateOpposites, path = '(inline)'): OppositeList {
  const terms = new Map<string, { words: string[]; sides: { pair: number; side: 0 | 1 }[] }>();
  file.pairs.forEach((p, pair) => {
    const clash = p.a.find((t) => p.b.includes(t));
    if (clash) throw new DataFileError(path, null, null, `pairs[${pair}] (${p.name}): "${clash}" is on both sides; remove it from one`);
    ([p.a, p.b] as const).forEach((side, s) =>
      side.forEach((t) => {
        const e = terms.get(t) ?? { words: t.split(' '), sides: [] };
        e.sides.push({ pair, side: s as 0 | 1 });
        terms.set(t, e);
      }),
    );
  });
  const byFirst: OppositeList['byFirst'] = new Map();
  for (const e of terms.values()) {
    const list = byFirst.get(e.words[0]!) ?? [];
    list.push(e);
    byFirst.set(e.words[0]!, list);
  }
  for (const list of byFirst.values()) list.sort((x, y) => y.words.length - x.words.length);
  return { names: file.pairs.map((p) => p.name), byFirst };
}

let shipped: OppositeList | null = null;

/** The shipped list, loaded once. */
export function defaultOpposites(): OppositeList {
  return (shipped ??= loadOpposites());
}

/** Where a pair's terms occur in one text: the sides in order of appearance. */
export type OppositeOccurrences = Map<number, (0 | 1)[]>;

/** One pair term found in a text: where it starts, how many words it spans, and the pair sides it stands for. */
export interface OppositeTerm {
  start: number;
  length: number;
  sides: { pair: number; side: 0 | 1 }[];
}

/** The pair terms of `words` (lower-cased, in order), longest phrase first, each word read once; one-word terms match their inflections. */
export function oppositeTermsOf(words: readonly string[], list: OppositeList = defaultOpposites()): OppositeTerm[] {
  const out: OppositeTerm[] = [];
  const keys = (w: string) => [w, ...formsOf(w)];
  for (let i = 0; i < words.length; ) {
    let matched: { words: string[]; sides: { pair: number; side: 0 | 1 }[] } | null = null;
    for (const k of new Set(keys(words[i]!))) {
      for (const e of list.byFirst.get(k) ?? []) {
        if (matched && matched.words.length >= e.words.length) continue;
        const fits = e.words.every((tw, j) => j === 0 || words[i + j] === tw || (words[i + j] !== undefined && formsOf(words[i + j]!).has(tw)));
        if (fits && (e.words.length > 1 || k === e.words[0])) matched = e;
      }
    }
    if (!matched) {
      i++;
      continue;
    }
    out.push({ start: i, length: matched.words.length, sides: matched.sides });
    i += matched.words.length;
  }
  return out;
}

/** Where the pair terms of `words` occur: per pair, its sides in order of appearance. */
export function oppositesOf(words: readonly string[], list: OppositeList = defaultOpposites()): OppositeOccurrences {
  const out: OppositeOccurrences = new Map();
  for (const term of oppositeTermsOf(words, list)) {
    const pairsSeen = new Set<number>();
    for (const { pair, side } of term.sides) {
      if (pairsSeen.has(pair)) continue;
      pairsSeen.add(pair);
      const seq = out.get(pair) ?? [];
      seq.push(side);
      out.set(pair, seq);
    }
  }
  return out;
}

/**
 * The name of the first pair the two texts hold in opposite ways, or null. Opposite: one text has more
 * of side A and the other more of side B; or both hold both sides as often, in another order
 * ("ascending, then descending" / "descending, then ascending").
 */
export function oppositeSwap(a: OppositeOccurrences, b: OppositeOccurrences, list: OppositeList = defaultOpposites()): string | null {
  for (const pair of new Set([...a.keys(), ...b.keys()])) {
    const sa = a.get(pair) ?? [];
    const sb = b.get(pair) ?? [];
    const count = (s: readonly number[], side: number) => s.filter((x) => x === side).length;
    const dA = count(sa, 0) - count(sb, 0);
    const dB = count(sa, 1) - count(sb, 1);
    if ((dA > 0 && dB < 0) || (dA < 0 && dB > 0)) return list.names[pair]!;
    if (dA === 0 && dB === 0 && count(sa, 0) > 0 && count(sa, 1) > 0 && sa.join() !== sb.join()) return list.names[pair]!;
  }
  return null;
}
