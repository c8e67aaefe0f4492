// The build's blanking of keepNames' calls that change nothing (scripts/same-names.mjs): a bundle whose functions
// the bundler renamed keeps every name, and stack, it had with all of keepNames' calls.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { blankSameNameCalls } from '../../scripts/same-names.mjs';
import { tempDir } from '../support/cli.ts';

/** Two modules declaring the same names (the bundler renames one of each), in every form keepNames names. */
const MODULE = (k: number) => `
export function round(x) { return x + ${k}; }
export async function load() { return ${k}; }
export function* walk() { yield ${k}; }
export class Shape { area() { return ${k}; } }
export const arrow = () => ${k};
export const object = { method() { return ${k}; }, prop: function () { return ${k}; } };
function frame() { return new Error('at ${k}').stack.split('\\n')[1].trim().split(' ')[1]; }
export const stack = frame;
`;
const ENTRY = `
import * as a from './a.mjs';
import * as b from './b.mjs';
const names = [];
for (const m of [a, b]) names.push(m.round.name, m.load.name, m.walk.name, m.Shape.name, m.arrow.name, m.object.method.name, m.object.prop.name, m.stack.name, m.stack());
console.log(JSON.stringify(names));
`;

/** The bundle as the build makes dist/analyze.cjs (CommonJS, keepNames, whitespace minified). */
async function bundle(): Promise<{ dir: string; code: string }> {
  const dir = tempDir('bench-same-names-');
  writeFileSync(join(dir, 'a.mjs'), MODULE(1));
  writeFileSync(join(dir, 'b.mjs'), MODULE(2));
  writeFileSync(join(dir, 'entry.mjs'), ENTRY);
  const out = join(dir, 'out.cjs');
  await build({ entryPoints: [join(dir, 'entry.mjs')], outfile: out, bundle: true, platform: 'node', format: 'cjs', target: 'node20', keepNames: true, minifyWhitespace: true, logLevel: 'error' });
  return { dir, code: readFileSync(out, 'utf8') };
}

function run(dir: string, code: string, file: string): string {
  writeFileSync(join(dir, file), code);
  return execFileSync(process.execPath, [join(dir, file)], { encoding: 'utf8' });
}

describe('blankSameNameCalls', () => {
  it("keeps every function's and class's name (renamed by the bundler or not) and its frames in a stack, blanking only calls that change nothing", async () => {
    const { dir, code } = await bundle();
    // The bundler renamed the second module's declarations: the case keepNames is for.
    expect(code).toMatch(/function round2\(/);
    const { code: blanked, blanked: count } = blankSameNameCalls(code);
    expect(count).toBeGreaterThanOrEqual(4);
    expect(blanked).toHaveLength(code.length);
    expect(blanked).toContain('__name(round2,"round")');
    const names = JSON.parse(run(dir, blanked, 'blanked.cjs')) as string[];
    expect(names).toEqual(JSON.parse(run(dir, code, 'kept.cjs')));
    // The frame is named as the function's name says (called as a method of the module object).
    const declared = ['round', 'load', 'walk', 'Shape', 'arrow', 'method', 'prop', 'frame', 'Object.frame'];
    expect(names).toEqual([...declared, ...declared]);
  });

  it('blanks a statement naming a declared function as itself, and no other call', () => {
    const code = 'function f(){}__name(f,"f");function g2(){}__name(g2,"g");x=__name(h,"h");var k=1;__name(k,"k");';
    const { code: out, blanked } = blankSameNameCalls(code);
    expect(blanked).toBe(1);
    expect(out).toBe(`function f(){}${' '.repeat('__name(f,"f");'.length)}function g2(){}__name(g2,"g");x=__name(h,"h");var k=1;__name(k,"k");`);
  });
});
