import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { maxLineWidth } from './fit-table.ts';
import { fitLines, wrapLine } from './fit-lines.ts';

const words = fc.array(fc.stringMatching(/^[a-z0-9/().:−-]{1,40}$/), { minLength: 1, maxLength: 40 });

describe('fitLines (issue 23 item 9)', () => {
  it('property: no line wider than asked, and no word lost (60–160 columns)', () => {
    fc.assert(
      fc.property(words, fc.integer({ min: 0, max: 12 }), fc.integer({ min: 60, max: 160 }), fc.boolean(), (ws, indent, width, kv) => {
        const line = `${' '.repeat(indent)}${kv ? 'some key:   ' : ''}${ws.join(' ')}`;
        const out = wrapLine(line, width);
        expect(maxLineWidth(out.join('\n'))).toBeLessThanOrEqual(width);
        expect(out.join('').replace(/\s+/g, '')).toBe(line.replace(/\s+/g, ''));
      }),
    );
  });

  it('hangs continuations under a key–value row\'s value, and leaves short lines alone', () => {
    const out = wrapLine(`  routing decisions:                ${'default_model=12 '.repeat(6).trim()}   hard failures: 0`, 80);
    expect(out[0]!.startsWith('  routing decisions:                default_model=12')).toBe(true);
    expect(out.slice(1).every((l) => l.startsWith(' '.repeat(36)) && !l.startsWith(' '.repeat(37)))).toBe(true);
    expect(fitLines('short\nlines', 60)).toBe('short\nlines');
    expect(fitLines('x'.repeat(200), null)).toBe('x'.repeat(200));
  });

  it('a wrapped shell command still pastes as the same command', () => {
    const cmd = `  npx analyze --skip-execute --db-path /tmp/${'very-long-directory-name/'.repeat(6)}run.db`;
    const out = wrapLine(cmd, 60);
    expect(maxLineWidth(out.join('\n'))).toBeLessThanOrEqual(60);
    // What a POSIX shell does with backslash-newline: removes it, inside a word too.
    expect(out.join('\n').replace(/\\\n/g, '').replace(/\s+/g, ' ').trim()).toBe(cmd.trim());
  });
});
