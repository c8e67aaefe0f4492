import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateFor, schemaSources } from '../scripts/gen-types.ts';
import { REPO_ROOT } from './support/temp.ts';

// One source of truth per fact: the schemas are canonical and the types are generated from them.
describe('schemas/types/*.ts are generated from schemas/*.schema.json', () => {
  it.each(schemaSources().map((s) => [s.out, s.path] as const))('%s is up to date (run `npm run gen:types` after editing a schema)', async (out, path) => {
    expect(readFileSync(join(REPO_ROOT, 'schemas', 'types', out), 'utf8')).toBe(await generateFor(path));
  });
});
