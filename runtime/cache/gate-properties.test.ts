// Properties of the exact-token gate over generated base/variant pairs, one family per class of
// opposite (numbers in any script or form, signs, negation by scope and count, antonym and quantifier
// pairs from runtime/data/gate-opposites.json): a variant that changes the answer-determining token is
// always refused, and a genuine paraphrase that keeps it is never refused by these rules.
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { describe, it } from 'vitest';
import type { GateOpposites } from '../../schemas/types/gate-opposites.ts';
import { gateMismatch, gateSignature } from './exact-token-gate.ts';
import { negationsOf } from './gate-negation.ts';
import { DEFAULT_OPPOSITES_PATH } from './gate-opposites.ts';

const gate = (a: string, b: string) => gateMismatch(gateSignature(a), gateSignature(b));
const RUNS = { numRuns: 300, seed: 22 };

/** Rewordings of a question's lead: several words differ, none answer-determining. */
const FRAMES = ['How do I', 'How can I', 'What is the way to', 'Explain how to', 'Tell me how to', 'What are the steps to'];
const NOUNS = ['cache size', 'worker pool', 'request queue', 'log buffer', 'retry budget'];
const TAILS = ['in production', 'on Linux', 'for the tests', 'during a deploy', 'in the config file', 'manually', 'correctly'];

const UNITS = ['', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve', 'thirteen', 'fourteen', 'fifteen', 'sixteen', 'seventeen', 'eighteen', 'nineteen'];
const TENS = ['', '', 'twenty', 'thirty', 'forty', 'fifty', 'sixty', 'seventy', 'eighty', 'ninety'];

function below1000(n: number): string {
  const h = Math.floor(n / 100);
  const r = n % 100;
  const rest = r < 20 ? UNITS[r]! : `${TENS[Math.floor(r / 10)]!}${r % 10 ? `-${UNITS[r % 10]!}` : ''}`;
  return [h ? `${UNITS[h]!} hundred` : '', h && r ? 'and' : '', rest].filter(Boolean).join(' ');
}

/** English words for 2 ≤ n < 1e6 ("twenty-one thousand four hundred and five"). */
function inWords(n: number): string {
  const th = Math.floor(n / 1000);
  const r = n % 1000;
  return [th ? `${below1000(th)} thousand` : '', r ? below1000(r) : ''].filter(Boolean).join(' ');
}

/** Zero digits of scripts people write numbers in: Arabic-Indic, Extended Arabic-Indic, Devanagari, Bengali, Thai, fullwidth, mathematical bold. */
const ZEROS = [0x660, 0x6f0, 0x966, 0x9e6, 0xe50, 0xff10, 0x1d7ce];

function inScript(n: number, zero: number): string {
  return [...String(n)].map((d) => String.fromCodePoint(zero + Number(d))).join('');
}

/** One number rendered in one of its forms: digits, grouped digits, words, another script, or a scale word. */
const rendering = (n: number) =>
  fc.oneof(
    fc.constant(String(n)),
    fc.constant(n >= 1000 ? n.toLocaleString('en-US') : String(n)),
    fc.constant(inWords(n)),
    fc.constantFrom(...ZEROS).map((z) => inScript(n, z)),
    fc.constant(n % 1000 === 0 && n >= 1000 ? `${n / 1000} thousand` : String(n)),
    fc.constant(n % 1000 === 0 && n >= 1000 ? `${inWords(n / 1000)} thousand` : inWords(n)),
  );

const count = fc.oneof(fc.integer({ min: 2, max: 99 }), fc.integer({ min: 2, max: 999 }).map((k) => k * 1000), fc.integer({ min: 100, max: 99_999 }));
const frame = fc.constantFrom(...FRAMES);
const noun = fc.constantFrom(...NOUNS);
const tail = fc.constantFrom(...TAILS);

/** Two renderings of one number. */
const sameNumber = count.chain((n) => fc.tuple(rendering(n), rendering(n)));
/** Renderings of two different numbers. */
const twoNumbers = fc
  .tuple(count, count)
  .filter(([n, m]) => n !== m)
  .chain(([n, m]) => fc.tuple(rendering(n), rendering(m)));
const small = fc.integer({ min: 2, max: 999 });
const minusOf = (x: string) => fc.constantFrom(`−${x}`, `-${x}`, `minus ${x}`, `negative ${x}`);

describe('gate properties: numbers in any script or form', () => {
  const question = (f: string, x: string, nn: string, t: string) => `${f} split the ${nn} into ${x} parts ${t}?`;
  it('refuses a variant with another number, however either is written', () => {
    fc.assert(fc.property(twoNumbers, frame, frame, noun, tail, tail, ([rn, rm], f1, f2, nn, t1, t2) => gate(question(f1, rn, nn, t1), question(f2, rm, nn, t2)) === 'numbers'), RUNS);
  });
  it('does not refuse a paraphrase that writes the same number another way', () => {
    fc.assert(fc.property(sameNumber, frame, frame, noun, tail, ([a, b], f1, f2, nn, t) => gate(question(f1, a, nn, t), question(f2, b, nn, t)) === null), RUNS);
  });
});

describe('gate properties: signs', () => {
  const question = (f: string, x: string, t: string) => `${f} compute the absolute value of ${x} ${t}?`;
  it('refuses a variant whose number changed sign (Unicode minus, "minus", "negative")', () => {
    const signed = small.chain((n) => fc.tuple(rendering(n).chain(minusOf), rendering(n)));
    fc.assert(fc.property(signed, frame, frame, tail, tail, ([neg, pos], f1, f2, t1, t2) => gate(question(f1, neg, t1), question(f2, pos, t2)) === 'numbers'), RUNS);
  });
  it('does not refuse the same negative number written another way', () => {
    const twoNegatives = small.chain((n) => fc.tuple(rendering(n).chain(minusOf), rendering(n).chain(minusOf)));
    fc.assert(fc.property(twoNegatives, frame, frame, tail, ([a, b], f1, f2, t) => gate(question(f1, a, t), question(f2, b, t)) === null), RUNS);
  });
});

describe('gate properties: negation by scope and count', () => {
  const ADJ = ['cached', 'logged', 'retried', 'indexed'];
  const STATE = ['running', 'idle', 'busy', 'degraded'];
  const NOUN = ['settings', 'requests', 'jobs', 'files'];
  const THING = ['server', 'queue', 'worker'];
  const LEAD = ['Which', 'What', 'List the'];
  const parts = fc.record({ lead: fc.constantFrom(...LEAD), lead2: fc.constantFrom(...LEAD), adj: fc.constantFrom(...ADJ), state: fc.constantFrom(...STATE), noun: fc.constantFrom(...NOUN), thing: fc.constantFrom(...THING) });
  type P = { lead: string; adj: string; state: string; noun: string; thing: string };
  /** `neg1` is put before the adjective, `neg2` before the state, `prep` before the thing. */
  const q = (p: P, lead: string, neg1: string, neg2: string, prep = 'when the') =>
    `${lead} ${p.noun} are ${neg1}${p.adj} ${prep} ${p.thing} is ${neg2}${p.state}?`.replace(/ {2,}/g, ' ');
  const cue = fc.constantFrom('not ', 'never ', 'no longer ');
  it('refuses an added negation (not, never, no longer) anywhere', () => {
    fc.assert(
      fc.property(parts, cue, fc.boolean(), (p, c, first) => gate(q(p, p.lead, '', ''), q(p, p.lead2, first ? c : '', first ? '' : c)) === 'negation'),
      RUNS,
    );
  });
  it('refuses a moved negation (same cue, same count, another scope)', () => {
    fc.assert(fc.property(parts, cue, (p, c) => gate(q(p, p.lead, c, ''), q(p, p.lead2, '', c)) === 'negation'), RUNS);
  });
  it('refuses with/without once another negation is present', () => {
    fc.assert(
      fc.property(parts, cue, fc.boolean(), (p, c, first) => gate(q(p, p.lead, first ? c : '', first ? '' : c, 'with the'), q(p, p.lead2, first ? c : '', first ? '' : c, 'without the')) === 'negation'),
      RUNS,
    );
  });
  it('does not refuse a paraphrase that keeps each negation on its word (contractions, another lead)', () => {
    const not = fc.constantFrom('not ', "n't ", 'nt ');
    const contract = (s: string, form: string) => (form === 'not ' ? s : s.replace(/ are not /, form === "n't " ? " aren't " : ' arent '));
    fc.assert(fc.property(parts, not, not, (p, a, b) => gate(contract(q(p, p.lead, 'not ', ''), a), contract(q(p, p.lead2, 'not ', ''), b)) === null), RUNS);
  });
});

const opposites = JSON.parse(readFileSync(DEFAULT_OPPOSITES_PATH, 'utf8')) as GateOpposites;
/** Pair terms that are also negation cues ("never", "excluding"): the negation rule refuses them first. */
const isCue = (term: string) => negationsOf(term.split(' ')).length > 0;

describe('gate properties: antonym and quantifier pairs (runtime/data/gate-opposites.json)', () => {
  const pair = fc.constantFrom(...opposites.pairs);
  const sides = pair.chain((p) => fc.tuple(fc.constant(p.name), fc.constantFrom(...p.a), fc.constantFrom(...p.b), fc.boolean()));
  it('refuses a variant that swaps a term for its opposite, with the rest reworded too', () => {
    fc.assert(
      fc.property(sides, frame, frame, noun, tail, tail, ([, a, b, flip], f1, f2, nn, t1, t2) => {
        const [x, y] = flip ? [b, a] : [a, b];
        const got = gate(`${f1} ${x} the ${nn} ${t1}?`, `${f2} ${y} the ${nn} ${t2}?`);
        return isCue(x) || isCue(y) ? got !== null : got === 'opposites';
      }),
      RUNS,
    );
  });
  it('refuses both terms in the other order ("a, then b" / "b, then a")', () => {
    fc.assert(
      fc.property(sides, frame, noun, ([, a, b], f, nn) => {
        fc.pre(!isCue(a) && !isCue(b));
        return gate(`${f} ${a} and then ${b} the ${nn}?`, `${f} ${b} and then ${a} the ${nn}?`) === 'opposites';
      }),
      RUNS,
    );
  });
  it('does not refuse a reworded paraphrase that keeps the term (or uses another term of the same side)', () => {
    const same = pair.chain((p) => fc.constantFrom(p.a, p.b)).chain((side) => fc.tuple(fc.constantFrom(...side), fc.constantFrom(...side)));
    fc.assert(
      fc.property(same, frame, frame, noun, tail, ([x, y], f1, f2, nn, t) => {
        // Another lead, so the pair is not one swapped word (that rule refuses single-synonym swaps by design).
        fc.pre(f1 !== f2 && !isCue(x) && !isCue(y));
        return gate(`${f1} ${x} the ${nn} ${t}?`, `${f2} ${y} the ${nn} ${t}?`) === null;
      }),
      RUNS,
    );
  });
});
