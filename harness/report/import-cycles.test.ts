import { describe, expect, it } from 'vitest';
import { importCycles, importEdges, type ImportEdge } from '../../test/support/import-layers.ts';
import { REPO_ROOT } from '../../test/support/temp.ts';

// Was: harness/report's own modules only. Now every import of harness/ and runtime/ (type-only and lazy
// ones too), read by the parser the floor test uses (test/support/import-layers.ts).
const edges = importEdges(REPO_ROOT, ['harness', 'runtime']);

/** Whether `to` is reachable from `from` by imports. */
function reaches(from: string, to: string, all: readonly ImportEdge[]): boolean {
  const next = new Map<string, string[]>();
  for (const e of all) next.set(e.from, [...(next.get(e.from) ?? []), e.to]);
  const seen = new Set([from]);
  const todo = [from];
  while (todo.length) {
    for (const w of next.get(todo.pop()!) ?? []) {
      if (w === to) return true;
      if (!seen.has(w)) {
        seen.add(w);
        todo.push(w);
      }
    }
  }
  return false;
}

describe('imports of harness/ and runtime/ (issue 23 item 10, issue 28 item 7)', () => {
  it('form no circle anywhere', () => {
    expect(importCycles(edges)).toEqual([]);
  });

  // The circles folded so far, each named: the imported side no longer reaches the importer by any chain.
  it.each([
    ['harness/report/oracle-section.ts', 'harness/report/report-sections.ts'],
    ['harness/suite/trace-run-host.ts', 'harness/suite/run-suite.ts'],
    ['harness/protocols/stream-protocol.ts', 'harness/cli/commands/run/run-stream-command.ts'],
    ['runtime/tools/index.ts', 'runtime/context/context-assembler.ts'],
    ['runtime/sessions/delegation.ts', 'runtime/sessions/session.ts'],
  ])('%s reaches %s by no chain of imports', (from, to) => {
    expect(reaches(from, to, edges)).toBe(false);
  });

  it('sees a chain where there is one (the check can fail)', () => {
    expect(reaches('harness/suite/run-suite.ts', 'harness/suite/trace-run-host.ts', edges)).toBe(true);
    expect(reaches('runtime/context/context-assembler.ts', 'runtime/tools/index.ts', edges)).toBe(true);
  });
});
