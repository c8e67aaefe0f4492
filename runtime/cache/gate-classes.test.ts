// The gate's word classes (runtime/data/gate-classes.json): the four pairs a probe saw served at
// --cache-delta 1, the loader's refusals, and properties per class over generated base/variant pairs.
import fc from 'fast-check';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { GateClasses } from '../../schemas/types/gate-classes.ts';
import { gateMismatch, gateSignature } from './exact-token-gate.ts';
import { classClash, DEFAULT_CLASSES_PATH, loadGateClasses, quantifiersOf, timesOf, unitsOf } from './gate-classes.ts';
import { negationsOf } from './gate-negation.ts';
import { numbersOf } from './gate-numbers.ts';
import { wordsOf } from './word-forms.ts';

const gate = (a: string, b: string) => gateMismatch(gateSignature(a), gateSignature(b));
const RUNS = { numRuns: 200, seed: 29 };
const data = JSON.parse(readFileSync(DEFAULT_CLASSES_PATH, 'utf8')) as GateClasses;

function file(text: string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'gate-classes-')), 'classes.json');
  writeFileSync(path, text);
  return path;
}

describe('gate classes: the pairs served at --cache-delta 1', () => {
  it('refuses "some" / "most" and "a dozen" / "half a dozen" as quantifiers', () => {
    expect(gate('Do some users see the login error?', 'Do most users see the login error?')).toBe('quantifiers');
    expect(gate('Can I buy a dozen eggs here?', 'Can I buy half a dozen eggs here?')).toBe('quantifiers');
  });
  it('refuses "Alice pays Bob" / "Bob pays Alice" as argument order', () => {
    expect(gate('Why does Alice pay Bob every month?', 'Why does Bob pay Alice every month?')).toBe('argument_order');
    // Blocks of words moved around a noun are a rewording, not a swap (a Tier 3 comparison served from its steps).
    expect(gate('Compare the monthly price and storage of the Basic and Pro plans.', 'Compare the Basic and Pro plans: storage and monthly price.')).toBeNull();
  });
  it('refuses "9 am" / "9 pm" as times, and serves "9 pm" for "21:00"', () => {
    expect(gate('Is the store open at 9 am?', 'Is the store open at 9 pm?')).toBe('times');
    expect(gate('Is the store open at 9 pm?', 'Is the store open at 21:00?')).toBeNull();
  });
  it('refuses "5 km" / "5 miles" as units, and "10 kg to pounds" / "10 pounds to kg"', () => {
    expect(gate('How long does it take to walk 5 km?', 'How long does it take to walk 5 miles?')).toBe('units');
    expect(gate('Convert 10 kg to pounds.', 'Convert 10 pounds to kg.')).toBe('units');
  });
  it('does not refuse a passive, a symmetric verb, or a dropped quantifier', () => {
    expect(gate('Why does Alice pay Bob?', 'Why is Bob paid by Alice?')).toBeNull();
    expect(gate('When did Alice meet Bob?', 'When did Bob meet Alice?')).toBeNull();
    expect(gate('Do some users see the login error?', 'Do users see the login error?')).toBeNull();
  });
});

describe('gate classes: readers', () => {
  it('reads the longest quantifier first', () => {
    expect(quantifiersOf(wordsOf('half a dozen eggs and a dozen apples'))).toEqual(['half_dozen', 'dozen']);
    expect(quantifiersOf(wordsOf('a few users, few admins'))).toEqual(['some', 'few']);
  });
  it('reads clock times as 24-hour HH:MM and takes their digits out of the numbers', () => {
    expect(timesOf('at 12 am, 12 pm, 9:30 p.m., 07:05 and noon').times).toEqual(['00:00', '07:05', '12:00', '12:00', '21:30']);
    expect(numbersOf(timesOf('wake at 6:30 am for 3 days').rest)).toEqual(['3']);
    // Not a clock: an hour past 12 with a marker, a ratio, a version.
    expect(timesOf('13 pm, 16:9, 3.10.2').times).toEqual([]);
  });
  it('tells a unit after a number from one named alone', () => {
    expect(unitsOf(wordsOf('convert 5 kilometres to miles'))).toEqual({ units: ['km', 'mile'], measured: ['km'] });
  });
  it('counts a clash only when each side gained a member the other lacks', () => {
    expect(classClash(['some'], ['most'])).toBe(true);
    expect(classClash(['some'], [])).toBe(false);
    expect(classClash(['some', 'all'], ['all'])).toBe(false);
    expect(classClash(['all', 'all'], ['all', 'some'])).toBe(true);
  });
});

describe('gate classes: the data file', () => {
  it('refuses a term in two quantifier classes, naming both', () => {
    const bad = structuredClone(data);
    bad.quantifiers[1]!.terms.push(bad.quantifiers[0]!.terms[0]!);
    expect(() => loadGateClasses(file(JSON.stringify(bad)))).toThrow(new RegExp(`quantifiers\\[1\\] \\(${bad.quantifiers[1]!.name}\\): "${bad.quantifiers[0]!.terms[0]}" is also in ${bad.quantifiers[0]!.name}`));
  });
  it('refuses a file that breaks the schema, naming the file and field', () => {
    const bad = structuredClone(data) as unknown as { times: { named: { term: string; time: string }[] } };
    bad.times.named[0]!.time = '25:00';
    const path = file(JSON.stringify(bad, null, 2));
    expect(() => loadGateClasses(path)).toThrow(new RegExp(`${path}.*times/named/0/time`, 's'));
  });
});

const FRAMES = ['Tell me whether', 'Can you check if', 'I would like to know if', 'Please find out whether'];
const NOUNS = ['workers', 'requests', 'tenants', 'replicas'];
const frame = fc.constantFrom(...FRAMES);
const noun = fc.constantFrom(...NOUNS);
/** A term that is also a negation cue or writes a number: those readings may refuse first. */
const otherReading = (t: string) => negationsOf(t.split(' ')).length > 0 || numbersOf(t).length > 0;

describe('gate properties: quantifiers', () => {
  const classes = fc.constantFrom(...data.quantifiers);
  const twoClasses = fc.tuple(classes, classes).filter(([x, y]) => x.name !== y.name).chain(([x, y]) => fc.tuple(fc.constantFrom(...x.terms), fc.constantFrom(...y.terms)));
  it('never passes a pair that differs only in a quantifier of another class, with the lead reworded', () => {
    fc.assert(
      fc.property(twoClasses, frame, frame, noun, ([q1, q2], f1, f2, n) => {
        const got = gate(`${f1} ${q1} ${n} failed the health check.`, `${f2} ${q2} ${n} failed the health check.`);
        return otherReading(q1) || otherReading(q2) ? got !== null : got === 'quantifiers';
      }),
      RUNS,
    );
  });
  it('does not refuse for quantifiers two terms of one class', () => {
    const sameClass = classes.chain((c) => fc.tuple(fc.constantFrom(...c.terms), fc.constantFrom(...c.terms)));
    fc.assert(fc.property(sameClass, frame, frame, noun, ([q1, q2], f1, f2, n) => gate(`${f1} ${q1} ${n} failed the health check.`, `${f2} ${q2} ${n} failed the health check.`) !== 'quantifiers'), RUNS);
  });
});

describe('gate properties: clock times', () => {
  const hour = fc.integer({ min: 1, max: 12 });
  const minutes = fc.constantFrom('', ':00', ':15', ':30', ':45');
  const am = fc.constantFrom(...data.times.am);
  const pm = fc.constantFrom(...data.times.pm);
  const q = (f: string, t: string) => `${f} the deploy window opens at ${t} on Fridays?`;
  it('never passes the same hour am and pm', () => {
    fc.assert(fc.property(hour, minutes, am, pm, frame, frame, (h, m, a, p, f1, f2) => gate(q(f1, `${h}${m} ${a}`), q(f2, `${h}${m} ${p}`)) === 'times'), RUNS);
  });
  it('never passes two different 24-hour times, and reads "h pm" as the 24-hour time it is', () => {
    fc.assert(
      fc.property(hour, minutes, pm, (h, m, p) => {
        const h24 = `${String((h % 12) + 12).padStart(2, '0')}${m || ':00'}`;
        return gate(q(FRAMES[0]!, `${h}${m} ${p}`), q(FRAMES[0]!, h24)) === null && gate(q(FRAMES[0]!, h24), q(FRAMES[0]!, `${String(h % 12).padStart(2, '0')}${m || ':00'}`)) === 'times';
      }),
      RUNS,
    );
  });
});

describe('gate properties: units', () => {
  const units = fc.constantFrom(...data.units);
  const twoUnits = fc.tuple(units, units).filter(([x, y]) => x.name !== y.name).chain(([x, y]) => fc.tuple(fc.constantFrom(...x.terms), fc.constantFrom(...y.terms)));
  const n = fc.integer({ min: 2, max: 500 });
  const q = (f: string, k: number, u: string) => `${f} ${k} ${u} is enough for the trip?`;
  it('never passes the same number on units of two different names', () => {
    fc.assert(
      fc.property(twoUnits, n, frame, frame, ([u1, u2], k, f1, f2) => {
        const got = gate(q(f1, k, u1), q(f2, k, u2));
        return otherReading(u1) || otherReading(u2) ? got !== null : got === 'units';
      }),
      RUNS,
    );
  });
  it('does not refuse for units two terms of one unit', () => {
    const sameUnit = units.chain((u) => fc.tuple(fc.constantFrom(...u.terms), fc.constantFrom(...u.terms)));
    fc.assert(fc.property(sameUnit, n, frame, frame, ([u1, u2], k, f1, f2) => gate(q(f1, k, u1), q(f2, k, u2)) !== 'units'), RUNS);
  });
});

describe('gate properties: argument order', () => {
  const NAMES = ['Alice', 'Bob', 'Carol', 'Dave', 'Erin', 'Frank'];
  const VERBS = ['pay', 'email', 'call', 'trust', 'invite', 'follow', 'block'];
  const two = fc.tuple(fc.constantFrom(...NAMES), fc.constantFrom(...NAMES)).filter(([x, y]) => x !== y);
  const verb = fc.constantFrom(...VERBS);
  const lead = fc.constantFrom('Why does', 'When does', 'How often does', 'Does');
  it('never passes the same words with subject and object swapped around the verb', () => {
    fc.assert(fc.property(two, verb, lead, ([x, y], v, l) => gate(`${l} ${x} ${v} ${y} every week?`, `${l} ${y} ${v} ${x} every week?`) === 'argument_order'), RUNS);
  });
  it('does not refuse a symmetric verb', () => {
    const sym = fc.constantFrom('meet', 'marry', 'resemble');
    fc.assert(fc.property(two, sym, lead, ([x, y], v, l) => gate(`${l} ${x} ${v} ${y} every week?`, `${l} ${y} ${v} ${x} every week?`) === null), RUNS);
  });
});

describe('gate properties: identical texts', () => {
  it('always pass, whatever class they hold', () => {
    const any = fc.constantFrom(
      ...data.quantifiers.flatMap((c) => c.terms.map((t) => `Do ${t} users see the error?`)),
      ...data.units.flatMap((u) => u.terms.map((t) => `Is 12 ${t} enough?`)),
      ...[...data.times.am, ...data.times.pm].map((m) => `Is it open at 7:30 ${m}?`),
      'Why does Alice pay Bob every month?',
    );
    fc.assert(fc.property(any, (t) => gate(t, t) === null), RUNS);
  });
});
