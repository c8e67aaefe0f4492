import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { MultiRun } from '../../schemas/types/multi-run.ts';
import { REPO_ROOT } from '../../test/support/temp.ts';
import { loadReport } from './find-report.ts';
import { maxLineWidth } from './fit-table.ts';
import { fitLines, wrapLine } from './fit-lines.ts';
import { buildMultiRunHeadline, renderMultiRunBlock } from './multi-run-headline.ts';

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

  it('property: counts characters, not UTF-16 units, where a line holds astral ones (emoji): as wide as asked, every word kept, none cut short', () => {
    const astral = fc.array(fc.stringMatching(/^[a-z0-9😀🚀𝔸-]{1,30}$/u), { minLength: 1, maxLength: 30 });
    fc.assert(
      fc.property(astral, fc.integer({ min: 0, max: 12 }), fc.integer({ min: 40, max: 120 }), (ws, indent, width) => {
        const line = `${' '.repeat(indent)}${ws.join(' ')}`;
        const out = wrapLine(line, width);
        expect(maxLineWidth(out.join('\n'))).toBeLessThanOrEqual(width);
        expect(out.join('').replace(/\s+/g, '')).toBe(line.replace(/\s+/g, ''));
        // A line that fits in characters stays whole, though its UTF-16 length is past the width.
        if ([...line].length <= width) expect(out).toEqual([line]);
      }),
      { seed: 2035, numRuns: 300 },
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

  it('property: the multi-run block of bench run --runs N (runs, combined headline, summary path) fits 60–160 columns and keeps every word', () => {
    const base = loadReport(join(REPO_ROOT, 'test/fixtures/reports/a3.json')).report;
    const seedSets = fc.uniqueArray(fc.integer({ min: 0, max: 2 ** 31 - 1 }), { minLength: 1, maxLength: 6 });
    const dirs = fc.array(fc.stringMatching(/^[a-z0-9._-]{1,30}$/), { minLength: 1, maxLength: 6 });
    fc.assert(
      fc.property(seedSets, dirs, fc.integer({ min: 60, max: 160 }), (seeds, dir, width) => {
        const reports = seeds.map((seed, i) => {
          const report = structuredClone(base);
          report.provenance.seed = seed;
          // Another learning trajectory on every other run, so the between-run part is there to print.
          if (i % 2 === 1) for (const w of report.workloads.filter((x) => x.pass === 'C')) for (const r of w.reps) r.solved = !r.solved;
          return { seed, report };
        });
        const stem = `/${dir.join('/')}/bench`;
        const m: MultiRun = {
          multi_run_version: 1,
          protocol: 'a3',
          seed_passes: 2,
          runs: seeds.map((seed) => ({ seed, run_id: `r${seed}`, json_path: `${stem}.seed-${seed}.json`, db_path: `${stem}.seed-${seed}.db`, exit_code: seed % 3 === 0 ? 0 : 1 })),
          headline: buildMultiRunHeadline(reports),
        };
        const wide = renderMultiRunBlock(m, `${stem}.runs.json`, null);
        const out = renderMultiRunBlock(m, `${stem}.runs.json`, width);
        expect(maxLineWidth(out)).toBeLessThanOrEqual(width);
        expect(out.replace(/\s+/g, '')).toBe(wide.replace(/\s+/g, ''));
        // Unwrapped, the verdict alone is wider than any terminal: the test would catch a block that skipped fitting.
        expect(maxLineWidth(wide)).toBeGreaterThan(160);
      }),
      { numRuns: 60 },
    );
  });
});
