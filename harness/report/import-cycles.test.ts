import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../test/support/temp.ts';

const DIR = join(REPO_ROOT, 'harness/report');

/** The report modules each module imports (type-only imports count: they still tie the two files together). */
function importGraph(): Map<string, string[]> {
  const files = readdirSync(DIR).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'));
  return new Map(files.map((f) => [f, [...readFileSync(join(DIR, f), 'utf8').matchAll(/from '\.\/([a-z0-9-]+\.ts)'/g)].map((m) => m[1]!).filter((x) => files.includes(x))]));
}

/** Every import circle as the list of files around it. */
function cycles(graph: Map<string, string[]>): string[][] {
  const found: string[][] = [];
  const walk = (path: string[]) => {
    for (const next of graph.get(path.at(-1)!) ?? []) {
      if (next === path[0]) found.push([...path, next]);
      else if (!path.includes(next) && next > path[0]!) walk([...path, next]);
    }
  };
  for (const f of graph.keys()) walk([f]);
  return found;
}

describe('harness/report imports (issue 23 item 10)', () => {
  it('has no import circle (oracle-section.ts and report-sections.ts used to import each other)', () => {
    expect(cycles(importGraph())).toEqual([]);
  });
});
