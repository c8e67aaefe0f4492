import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(HERE, '..', '..');
const RUN_SUITE = resolve(ROOT, 'harness/suite/run-suite.ts');

/** The relative modules `file` imports or re-exports (type-only imports too: they still tie the two files together). */
function importsOf(file: string): string[] {
  const src = readFileSync(file, 'utf8');
  return [...src.matchAll(/^(?:import|export)[^'"]*?from\s+'(\.[^']+\.ts)'/gm)].map((m) => resolve(dirname(file), m[1]!));
}

/** Every module reachable from `start` by relative imports, with the path that reaches it. */
function reach(start: string): Map<string, string[]> {
  const seen = new Map<string, string[]>([[start, [start]]]);
  const todo = [start];
  while (todo.length) {
    const f = todo.pop()!;
    for (const d of importsOf(f)) {
      if (seen.has(d)) continue;
      seen.set(d, [...seen.get(f)!, d]);
      todo.push(d);
    }
  }
  return seen;
}

describe('the run store layer (harness/runs) does not import the runner that drives it', () => {
  it('resume-facts.ts reaches run-suite.ts by no import chain (the circle issue 22 folded)', () => {
    const path = reach(join(ROOT, 'harness/runs/resume-facts.ts')).get(RUN_SUITE);
    expect(path?.map((p) => relative(ROOT, p))).toBeUndefined();
  });
});
