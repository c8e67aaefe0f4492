// The floors of harness/ and runtime/ (harness/data/layers.json, docs/architecture.md): every import points
// to its own folder or down a floor, and there is no import circle anywhere.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatAjvErrors, validatorFor } from '../runtime/core/schemas.ts';
import { cycleText, floorBreak, importCycles, importEdges, importsOf, type Floor, type LayersFile } from '../test/support/import-layers.ts';
import { REPO_ROOT } from '../test/support/temp.ts';

const LAYERS_PATH = join(REPO_ROOT, 'harness/data/layers.json');
const layers = JSON.parse(readFileSync(LAYERS_PATH, 'utf8')) as LayersFile;
const edges = importEdges(REPO_ROOT, layers.roots);

describe('the floors of harness/ and runtime/', () => {
  it('are data valid against schemas/layers.schema.json, each unit on one floor', () => {
    const validate = validatorFor<LayersFile>('layers.schema.json');
    expect(validate(layers), formatAjvErrors(validate.errors).join('; ')).toBe(true);
    const units = layers.floors.flatMap((f) => f.units);
    expect(units.filter((u, i) => units.indexOf(u) !== i)).toEqual([]);
  });

  it('have every import pointing to its own folder or down a floor (the runtime never imports the harness)', () => {
    const pending = new Set(layers.pending.map((p) => `${p.from} -> ${p.to}`));
    const breaks = edges.filter((e) => !pending.has(`${e.from} -> ${e.to}`)).flatMap((e) => floorBreak(e, layers.floors) ?? []);
    expect([...new Set(breaks)]).toEqual([]);
  });

  it('list as pending only imports that still break the floors (delete an entry once its move is done)', () => {
    const stale = layers.pending.filter((p) => !edges.some((e) => e.from === p.from && e.to === p.to && floorBreak(e, layers.floors)));
    expect(stale.map((p) => `${p.from} -> ${p.to} no longer breaks the floors: delete it from pending in harness/data/layers.json`)).toEqual([]);
  });

  it('have no import circle anywhere', () => {
    expect(importCycles(edges).map(cycleText)).toEqual([]);
  });
});

describe('the floor check itself', () => {
  const floors: Floor[] = [
    { name: 'low', description: 'x', units: ['h/low.ts', 'h/base'] },
    { name: 'mid', description: 'x', units: ['h/mid', 'h/side'] },
    { name: 'top', description: 'x', units: ['h/cli'] },
  ];
  const edge = (from: string, to: string) => ({ from, to, line: 3 });

  it('lets a file import its own folder and lower floors, and names both files and the fix on an import up or sideways', () => {
    expect(floorBreak(edge('h/mid/a.ts', 'h/mid/b.ts'), floors)).toBeNull();
    expect(floorBreak(edge('h/cli/a.ts', 'h/base/deep/b.ts'), floors)).toBeNull();
    expect(floorBreak(edge('h/base/a.ts', 'h/cli/c.ts'), floors)).toMatch(/^h\/base\/a\.ts:3 imports h\/cli\/c\.ts: h\/cli \(floor 2, top\) is above h\/base \(floor 0, low\).*Fix: move the shared code to floor 0 or lower/);
    expect(floorBreak(edge('h/mid/a.ts', 'h/side/b.ts'), floors)).toMatch(/h\/side \(floor 1, mid\) is beside h\/mid \(floor 1, mid\).*Fix:/);
    expect(floorBreak(edge('h/nowhere/a.ts', 'h/low.ts'), floors)).toMatch(/h\/nowhere\/a\.ts is on no floor: add its folder/);
  });

  it('reads static, re-exported, type-only and lazy imports, and skips comments and packages', () => {
    const text = [
      "import { a } from './a.ts';",
      "import type { B } from '../b/b.ts';",
      "export { c } from './c/c.ts';",
      "// import { no } from './commented.ts';",
      "/* import { no } from './block.ts';",
      "   still a comment */",
      "import 'node:fs';",
      "const d = await import('./d.ts');",
    ].join('\n');
    expect(importsOf('h/x/file.ts', text).map((e) => `${e.to}:${e.line}`)).toEqual(['h/x/a.ts:1', 'h/b/b.ts:2', 'h/x/c/c.ts:3', 'h/x/d.ts:8']);
  });

  it('finds every circle, each as one path of files back to where it starts', () => {
    const circle = [edge('a.ts', 'b.ts'), edge('b.ts', 'c.ts'), edge('c.ts', 'a.ts'), edge('c.ts', 'd.ts'), edge('x.ts', 'y.ts'), edge('y.ts', 'x.ts'), edge('d.ts', 'e.ts')];
    expect(importCycles(circle)).toEqual([
      ['a.ts', 'b.ts', 'c.ts', 'a.ts'],
      ['x.ts', 'y.ts', 'x.ts'],
    ]);
    expect(importCycles([edge('a.ts', 'b.ts'), edge('b.ts', 'c.ts')])).toEqual([]);
  });
});
