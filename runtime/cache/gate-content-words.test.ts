// The content-word rules of the gate (gate-content-words.ts): a substituted content word not explained by
// inflection or the synonym table is a change of subject, and a candidate sharing under half of either
// text's content words asks about something else; rewordings, inflections and synonyms still pass.
import fc from 'fast-check';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { GateSynonyms } from '../../schemas/types/gate-synonyms.ts';
import { gateMismatch, gateSignature } from './exact-token-gate.ts';
import { contentMismatch, contentReading, DEFAULT_SYNONYMS_PATH, defaultSynonyms, isFunctionWord, loadSynonyms, sameTerm } from './gate-content-words.ts';
import { defaultOpposites, oppositeTermsOf } from './gate-opposites.ts';
import { wordsOf } from './word-forms.ts';

const content = (a: string, b: string) => contentMismatch(contentReading(wordsOf(a)), contentReading(wordsOf(b)));
const gate = (a: string, b: string) => gateMismatch(gateSignature(a), gateSignature(b));
const RUNS = { numRuns: 300, seed: 22 };

function file(text: string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'synonyms-')), 'synonyms.json');
  writeFileSync(path, text);
  return path;
}

describe('content words: substitutions', () => {
  it('refuses two lower-case words swapped at once (g2-v1 / g2-v0 of cache-adversarial)', () => {
    expect(content('How do I install numpy with conda?', 'How do I install pandas with pip?')).toBe('word_swap');
    expect(gate('How do I install numpy with conda?', 'How do I install pandas with pip?')).toBe('word_swap');
  });
  it('refuses a swap whatever function words changed around it', () => {
    expect(content('How do I install numpy with pip?', 'How can one install pandas using pip?')).toBe('word_swap');
    expect(content('What does the git command git rebase do?', 'What does git merge do?')).toBe('content');
  });
  it('passes an inflection, a synonym from the table, a changed function word or a moved word', () => {
    expect(content('How do I install numpy with pip?', 'How can I install numpy with pip?')).toBeNull();
    expect(content('How do I merge two datasets?', 'How do I merge two dataset?')).toBeNull();
    expect(content('Which folder holds the config?', 'Which directory holds the configuration?')).toBeNull();
    expect(content('Install numpy with pip.', 'With pip, install numpy.')).toBeNull();
  });
});

describe('content words: share', () => {
  it('refuses a candidate about something else (cache-adversarial g35-v0 / g13-v0, g38-v0 / g35-base)', () => {
    expect(gate('How do I disable verbose logging in nginx?', 'What does the git command git merge do?')).toBe('content');
    expect(gate('How do I display the last line of a file?', 'How can I enable verbose logging in nginx?')).toBe('content');
  });
  it('passes a rewording that keeps at least half of each side\'s content words', () => {
    expect(gate('How do I install numpy with pip?', 'What is the way to install numpy using pip?')).toBeNull();
    expect(gate('The filter method selects records from a table.', 'Records from a table are selected by the filter method in one pass.')).toBeNull();
  });
  it('leaves function words, numbers and negation cues out of the comparison', () => {
    for (const w of ['the', 'how', "what's", "don't", 'three', '42', 'way', 'explain']) expect(isFunctionWord(w)).toBe(true);
    for (const w of ['numpy', 'install', 'pip', 'rebase']) expect(isFunctionWord(w)).toBe(false);
  });
});

describe('the synonym table (runtime/data/gate-synonyms.json)', () => {
  it('reads a word through its inflections and treats one side of an antonym pair as one meaning', () => {
    expect(sameTerm('utilized', 'employs')).toBe(true);
    expect(sameTerm('pip', 'conda')).toBe(false);
    expect(content('Does the password need at least eight characters?', 'Must the password have no fewer than 8 characters?')).toBeNull();
  });
  it('refuses a file that breaks the schema, naming the file and field', () => {
    const path = file('{"version": "x", "groups": [{"words": ["Fast", "quick"]}]}');
    expect(() => loadSynonyms(path)).toThrow(new RegExp(`${path}.*groups/0/words/0`, 's'));
  });
  it('refuses a word in two groups, naming both', () => {
    const path = file('{"version": "x", "groups": [{"words": ["fast", "quick"]}, {"words": ["rapid", "quick"]}]}');
    expect(() => loadSynonyms(path)).toThrow(/groups\[1\]: "quick" is also in groups\[0\]/);
  });
  it('never joins the two sides of an antonym pair (a synonym may only loosen the gate where the pair list agrees)', () => {
    const shipped = JSON.parse(readFileSync(DEFAULT_SYNONYMS_PATH, 'utf8')) as GateSynonyms;
    for (const g of shipped.groups) {
      const sides = new Set(g.words.flatMap((w) => oppositeTermsOf([w], defaultOpposites()).flatMap((t) => t.sides.map((s) => `${s.pair}:${s.side}`))));
      for (const s of sides) expect(sides.has(s.replace(/:(\d)$/, (_, d: string) => `:${1 - Number(d)}`)), `${g.words.join(', ')}`).toBe(false);
    }
    expect(defaultSynonyms().groupOf.size).toBeGreaterThan(50);
  });
});

// Words with no shared meaning between any two (no inflection, synonym or pair side in common): a swap among them is a change of subject.
const NOUNS = ['numpy', 'pandas', 'conda', 'pip', 'nginx', 'apache', 'rebase', 'cherry', 'mutex', 'semaphore', 'kernel', 'gluten', 'vitamin', 'tokyo', 'osaka', 'hamlet', 'macbeth', 'python', 'golang', 'postgres', 'mysql', 'redis', 'kafka', 'docker', 'cluster', 'widget', 'invoice', 'ledger', 'pixel', 'socket'];
const VERBS = ['install', 'configure', 'debug', 'profile', 'benchmark', 'migrate', 'deploy', 'monitor', 'package', 'patch'];
const LEADS = ['How do I', 'How can I', 'How would one', 'What is the way to', 'Explain how to', 'Tell me how to'];
const LINKS = ['with', 'using', 'via', 'for', 'on', 'in'];

/** A question of the shape "<lead> <verb> <noun> <link> <noun> <link> <noun>?", as its slot values. */
const question = fc.record({
  lead: fc.constantFrom(...LEADS),
  verb: fc.constantFrom(...VERBS),
  nouns: fc.uniqueArray(fc.constantFrom(...NOUNS), { minLength: 3, maxLength: 3 }),
  links: fc.array(fc.constantFrom(...LINKS), { minLength: 2, maxLength: 2 }),
});
type Q = { lead: string; verb: string; nouns: string[]; links: string[] };
const render = (q: Q) => `${q.lead} ${q.verb} the ${q.nouns[0]} ${q.links[0]} ${q.nouns[1]} ${q.links[1]} ${q.nouns[2]}?`;

describe('content words: properties', () => {
  it('swapping any k ≥ 1 content words for unrelated ones is never served, whatever lead or link words changed', () => {
    const swapped = question.chain((q) =>
      fc.tuple(fc.constant(q), fc.subarray([0, 1, 2, 3], { minLength: 1 }), fc.constantFrom(...LEADS), fc.array(fc.constantFrom(...LINKS), { minLength: 2, maxLength: 2 }), fc.shuffledSubarray(NOUNS.filter((n) => !q.nouns.includes(n)), { minLength: 3, maxLength: 3 }), fc.constantFrom(...VERBS.filter((v) => v !== q.verb))),
    );
    fc.assert(
      fc.property(swapped, ([q, at, lead, links, fresh, verb]) => {
        const v: Q = { lead, verb: at.includes(0) ? verb : q.verb, nouns: q.nouns.map((n, i) => (at.includes(i + 1) ? fresh[i]! : n)), links };
        return gate(render(q), render(v)) !== null && content(render(q), render(v)) !== null;
      }),
      RUNS,
    );
  });
  it('a paraphrase by inflection, synonym, another lead and reordered phrases still passes', () => {
    const SYN: Record<string, string> = { install: 'installing', configure: 'configuring', debug: 'debugging', deploy: 'deploying', migrate: 'migrating' };
    fc.assert(
      fc.property(question, fc.constantFrom(...LEADS), fc.boolean(), fc.boolean(), (q, lead, inflect, reorder) => {
        const verb = inflect ? (SYN[q.verb] ?? `${q.verb}s`) : q.verb;
        const nouns = inflect ? q.nouns.map((n) => `${n}s`) : q.nouns;
        const text = reorder ? `${q.links[1]} ${nouns[2]}, ${lead.toLowerCase()} ${verb} ${nouns[0]} ${q.links[0]} ${nouns[1]}?` : `${lead} ${verb} the ${nouns[0]} ${q.links[0]} ${nouns[1]} ${q.links[1]} ${nouns[2]}?`;
        return content(render(q), text) === null;
      }),
      RUNS,
    );
  });
  it('a word replaced by a synonym of the table passes; by a word of another group, it is refused', () => {
    const groups = JSON.parse(readFileSync(DEFAULT_SYNONYMS_PATH, 'utf8')) as GateSynonyms;
    const words = groups.groups.flatMap((g, i) => g.words.map((w) => [w, i] as const)).filter(([w]) => !isFunctionWord(w));
    const pair = fc.tuple(fc.constantFrom(...words), fc.constantFrom(...words));
    fc.assert(
      fc.property(pair, fc.constantFrom(...NOUNS), fc.constantFrom(...NOUNS), ([[x, gx], [y, gy]], n1, n2) => {
        fc.pre(x !== y && n1 !== n2);
        const got = content(`How do I ${x} the ${n1} for ${n2}?`, `How can I ${y} the ${n1} for ${n2}?`);
        return gx === gy ? got === null : sameTerm(x, y) || got === 'word_swap';
      }),
      RUNS,
    );
  });
  it('a candidate sharing under half of its content words is refused, whatever the other rules say', () => {
    const disjoint = fc.uniqueArray(fc.constantFrom(...NOUNS), { minLength: 6, maxLength: 6 });
    fc.assert(
      fc.property(disjoint, fc.constantFrom(...LEADS), fc.constantFrom(...LEADS), fc.constantFrom(...VERBS), (ns, l1, l2, verb) => {
        // One shared word (the verb) of four distinct content words each: 1/4 < 1/2.
        const a = `${l1} ${verb} ${ns[0]} with ${ns[1]} on ${ns[2]}?`;
        const b = `${l2} ${verb} ${ns[3]} and ${ns[4]} for ${ns[5]} today`;
        return content(a, b) === 'content';
      }),
      RUNS,
    );
  });
  it('is symmetric (property)', () => {
    fc.assert(fc.property(question, question, (a, b) => content(render(a), render(b)) === content(render(b), render(a))), RUNS);
  });
});
