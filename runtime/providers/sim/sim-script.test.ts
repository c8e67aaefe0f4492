import { describe, expect, it } from 'vitest';
import { DataFileError } from '../../core/yaml-document.ts';
import { loadSimScript } from './sim-script.ts';

const FILE = 'workloads/demo/sim.yaml';

const good = `version: 1
turns:
  - difficulty: 0.4
    plans:
      - id: fix-it
        competent: true
        steps:
          - text: Reading the file.
            tool_calls:
              - tool: read_file
                input: { path: src/app.py }
        final: Fixed the bug.
      - id: wrong-line
        weight: 2
        steps: []
        final: Fixed it (edited the wrong line).
`;

function errorOf(text: string): DataFileError {
  try {
    loadSimScript(FILE, text);
  } catch (e) {
    if (e instanceof DataFileError) return e;
    throw e;
  }
  throw new Error('expected a DataFileError');
}

describe('loadSimScript', () => {
  it('loads a valid script and applies defaults (competent false, weight 1)', () => {
    const s = loadSimScript(FILE, good.replace('        weight: 2\n', ''));
    expect(s.turns[0]!.plans.map((p) => [p.id, p.competent, p.weight])).toEqual([
      ['fix-it', true, 1],
      ['wrong-line', false, 1],
    ]);
  });

  it('rejects two competent plans, naming the file and the line of the second', () => {
    const text = good.replace('        weight: 2\n', '        competent: true\n');
    const e = errorOf(text);
    expect(e.file).toBe(FILE);
    expect(e.line).toBe(14);
    expect(e.message).toContain(`${FILE}:14:`);
    expect(e.message).toContain('2 plans with competent: true');
  });

  it('rejects a turn with no competent plan, naming the plans line', () => {
    const e = errorOf(good.replace('        competent: true\n', ''));
    expect(e.message).toMatch(new RegExp(`^${FILE}:5:\\d+: turn 0 has 0 plans`));
  });

  it('rejects repeated plan ids within a turn, naming the repeat', () => {
    const e = errorOf(good.replace('id: wrong-line', 'id: fix-it'));
    expect(e.line).toBe(13);
    expect(e.message).toContain("plan id 'fix-it' repeats plan 0");
  });

  it('rejects an unknown key with file, line and the key', () => {
    const e = errorOf(good.replace('        weight: 2\n', '        wieght: 2\n'));
    expect(e.message).toContain(`${FILE}:14:`);
    expect(e.message).toContain("unknown key 'wieght'");
  });

  it('rejects malformed YAML with its position', () => {
    const e = errorOf('version: 1\nturns: [\n');
    expect(e.file).toBe(FILE);
    expect(e.line).not.toBeNull();
  });
});
