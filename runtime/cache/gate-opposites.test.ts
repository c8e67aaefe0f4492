import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultOpposites, loadOpposites, oppositesOf, oppositeSwap } from './gate-opposites.ts';
import { wordsOf } from './word-forms.ts';

const swap = (a: string, b: string) => oppositeSwap(oppositesOf(wordsOf(a)), oppositesOf(wordsOf(b)));

function file(text: string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'opposites-')), 'pairs.json');
  writeFileSync(path, text);
  return path;
}

describe('gate opposites (runtime/data/gate-opposites.json)', () => {
  it('ships the pairs the issue names', () => {
    const names = defaultOpposites().names;
    for (const n of ['increase/decrease', 'enable/disable', 'min/max', 'before/after', 'first/last', 'ascending/descending', 'at_least/at_most', 'more/less', 'above/below'])
      expect(names).toContain(n);
  });
  it('reads inflections and phrases, longest first', () => {
    expect(swap('the feature was enabled', 'the feature was disabled')).toBe('enable/disable');
    expect(swap('turn on the flag', 'turn off the flag')).toBe('enable/disable');
    // "no more than" is at most, not "more" plus a negation.
    expect(swap('at least 3 retries', 'no more than 3 retries')).toBe('at_least/at_most');
  });
  it('does not refuse a text that only dropped or added one side', () => {
    expect(swap('increase the limit', 'change the limit')).toBeNull();
    expect(swap('set the limit', 'raise the limit')).toBeNull();
  });
  it('refuses both sides in the other order', () => {
    expect(swap('sort ascending then descending', 'sort descending then ascending')).toBe('ascending/descending');
  });
  it('refuses a file that breaks the schema, naming the file and field', () => {
    const path = file('{"version": "x", "pairs": [{"name": "up/down", "a": ["Up"], "b": ["down"]}]}');
    expect(() => loadOpposites(path)).toThrow(new RegExp(`${path}.*pairs/0/a/0`, 's'));
  });
  it('refuses a term on both sides of one pair', () => {
    const path = file('{"version": "x", "pairs": [{"name": "up/down", "a": ["up", "rise"], "b": ["down", "rise"]}]}');
    expect(() => loadOpposites(path)).toThrow(/pairs\[0\] \(up\/down\): "rise" is on both sides/);
  });
});
