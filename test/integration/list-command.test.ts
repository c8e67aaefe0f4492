import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { foldName, renderList } from '../../harness/cli/commands/list.ts';
import { bench, REPO_ROOT, tempDir } from '../support/cli.ts';

/** A workload.yaml's text without its recorded signal block. */
const withoutSignal = (text: string) => text.replace(/^signal:\n(?: {2}.*\n)+/m, '');

const widest = (text: string) => Math.max(...text.split('\n').map((l) => [...l].length));

describe('bench list', () => {
  for (const width of [80, 100, 120]) {
    it(`fits ${width} columns, by --width and by $COLUMNS, and still names every workload`, async () => {
      for (const r of [await bench(['list', '--width', String(width)]), await bench(['list'], { env: { COLUMNS: String(width) } })]) {
        expect(r.code, r.stderr).toBe(0);
        expect(widest(r.stdout)).toBeLessThanOrEqual(width);
        const json = JSON.parse((await bench(['list', '--json'])).stdout) as {
          name: string;
        }[];
        // A folded name breaks only after a hyphen, so its parts appear in order.
        for (const w of json) expect(r.stdout).toMatch(new RegExp(`^${w.name.split('-').join('-[\\s\\S]*?')}`, 'm'));
        expect(r.stdout).toContain('measured by');
      }
    });
  }

  it('--wide keeps every column however long the lines get', async () => {
    const r = await bench(['list', '--wide'], { env: { COLUMNS: '80' } });
    expect(r.stdout.split('\n')[0]).toMatch(/workload +signal +measured by +gap score\/solved +turns +check +sim/);
    expect(r.stdout).not.toContain('hidden to fit');
  });

  it('says which provider measured a verdict, and - when none is recorded', async () => {
    const dir = tempDir();
    cpSync(join(REPO_ROOT, 'workloads', 'fix-a-bug-small'), join(dir, 'fix-a-bug-small'), { recursive: true });
    cpSync(join(REPO_ROOT, 'workloads', 'regex-with-edge-cases'), join(dir, 'regex-with-edge-cases'), { recursive: true });
    const file = join(dir, 'fix-a-bug-small', 'workload.yaml');
    const block =
      'signal:\n  score_gap: 0.512\n  solved_gap: 0.75\n  reps: 4\n  provider: sim\n  simulated: true\n' +
      '  cheap_model: anthropic:claude-haiku-4-5\n  strong_model: anthropic:claude-sonnet-4-6\n  measured_at: 2026-11-24T12:00:00Z\n';
    writeFileSync(file, withoutSignal(readFileSync(file, 'utf8')).replace(/^signal_strength: marginal\n/m, `signal_strength: high\n${block}`));
    const other = join(dir, 'regex-with-edge-cases', 'workload.yaml');
    writeFileSync(other, withoutSignal(readFileSync(other, 'utf8')));
    const r = await bench(['list', '--workloads-dir', dir, '--wide']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/fix-a-bug-small +high +sim +0\.51 \/ 0\.75/);
    expect(r.stdout).toMatch(/regex-with-edge-cases +marginal +- +-/);
    const json = JSON.parse((await bench(['list', '--workloads-dir', dir, '--json'])).stdout) as { name: string; measured_by: string | null }[];
    expect(json.map((w) => w.measured_by)).toEqual(['sim', null]);
  });

  it('folds a long name at its hyphens and never past the width', () => {
    expect(foldName('architectural-explanation-without-hallucination', 20)).toEqual(['architectural-', 'explanation-without-', 'hallucination']);
    expect(foldName('abcdefghij', 4)).toEqual(['abcd', 'efgh', 'ij']);
    const row = {
      name: 'a-very-long-workload-name-that-folds',
      signal_strength: 'high' as const,
      measured_by: 'replay:sim',
      score_gap: 0.5,
      solved_gap: 1,
      turns: 3,
      check: true,
      sim_script: true,
      description: 'word '.repeat(40),
    };
    for (const width of [40, 60, 80]) expect(widest(renderList([row], width).text)).toBeLessThanOrEqual(width);
  });
});

describe('renderList (property)', () => {
  const slug = fc.stringMatching(/^[a-z0-9]{1,12}(-[a-z0-9]{1,12}){0,6}$/);
  const row = fc.record({
    name: slug,
    signal_strength: fc.constantFrom('high' as const, 'marginal' as const),
    measured_by: fc.option(fc.stringMatching(/^[a-z:+-]{1,30}$/), { nil: null }),
    score_gap: fc.option(fc.double({ min: -1, max: 1, noNaN: true }), { nil: null }),
    solved_gap: fc.option(fc.double({ min: -1, max: 1, noNaN: true }), { nil: null }),
    turns: fc.integer({ min: 1, max: 20 }),
    check: fc.boolean(),
    sim_script: fc.boolean(),
    description: fc.array(fc.stringMatching(/^[a-zA-Z,.()]{1,25}$/), { minLength: 1, maxLength: 40 }).map((w) => w.join(' ')),
  });

  it('never prints a line wider than the width, and starts a line with the first part of every name', () => {
    fc.assert(
      fc.property(fc.array(row, { minLength: 1, maxLength: 8 }), fc.integer({ min: 40, max: 160 }), (rows, width) => {
        const { text } = renderList(rows, width);
        expect(widest(text)).toBeLessThanOrEqual(width);
        for (const r of rows) expect(text).toMatch(new RegExp(`^${r.name.split('-')[0]}`, 'm'));
      }),
      { numRuns: 300 },
    );
  });
});
