// The schemas dist/'s validators are compiled from (scripts/schema-annotations.mjs): without their annotations,
// and judging every instance as the schemas as written do.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv, type Options, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { withoutAnnotations } from '../../scripts/schema-annotations.mjs';
import { schemaSamples } from '../../scripts/validator-code-cache.mjs';
import { REPO_ROOT } from '../support/cli.ts';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

/** Every schema file under schemas/ but the generated types, by path. */
function schemaFiles(dir = join(REPO_ROOT, 'schemas')): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return path.endsWith(join('schemas', 'types')) ? [] : schemaFiles(path);
    return e.name.endsWith('.json') ? [path] : [];
  });
}

/** An ajv instance as the build makes it, holding every schema (each as `prepare` makes it) under its $id or path. */
function instance(prepare: (s: unknown) => unknown): { ajv: Ajv; keys: Map<string, string> } {
  const options = JSON.parse(readFileSync(join(REPO_ROOT, 'runtime', 'core', 'ajv-options.json'), 'utf8')) as Options;
  const ajv = addFormats(new Ajv(options));
  const keys = new Map<string, string>();
  for (const file of schemaFiles()) {
    try {
      const schema = prepare(JSON.parse(readFileSync(file, 'utf8'))) as Record<string, unknown>;
      const key = typeof schema.$id === 'string' ? schema.$id : file;
      if (!ajv.getSchema(key)) ajv.addSchema(schema, typeof schema.$id === 'string' ? undefined : file);
      keys.set(file, key);
    } catch {
      // A file ajv does not take: the build leaves it out too.
    }
  }
  return { ajv, keys };
}

/** `x` changed in the k-th of a few ways (a member dropped or retyped, an item added, a type swapped). */
function mutated(x: unknown, k: number): unknown {
  if (Array.isArray(x)) return k % 2 ? [] : [...x, 1];
  if (typeof x === 'object' && x !== null) {
    const o = { ...(x as Record<string, unknown>) };
    const names = Object.keys(o);
    if (names.length === 0) return { ...o, extra: 1 };
    const name = names[k % names.length]!;
    if (k % 3 === 0) delete o[name];
    else if (k % 3 === 1) o[name] = 'x';
    else o[name] = mutated(o[name], k + 1);
    return o;
  }
  return typeof x === 'string' ? 5 : 'y';
}

/** The validator of `key`, or the message ajv refused it with. */
function compiled(ajv: Ajv, key: string): ValidateFunction | string | undefined {
  try {
    return ajv.getSchema(key);
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
}

describe('withoutAnnotations', () => {
  it('drops description, title, $comment and examples where a schema sits, and nothing else', () => {
    const schema = {
      $id: 'x',
      title: 'gone',
      description: 'gone',
      $comment: 'gone',
      type: 'object',
      properties: { description: { type: 'string', description: 'gone' }, title: { const: { title: 'kept', description: 'kept' } } },
      default: { description: 'kept' },
      enum: [{ title: 'kept' }],
      items: [{ examples: [1] }],
      dependencies: { a: ['description'], b: { title: 'gone' } },
      definitions: { D: { anyOf: [{ description: 'gone', type: 'null' }], not: { $comment: 'gone' } } },
    };
    expect(withoutAnnotations(schema)).toEqual({
      $id: 'x',
      type: 'object',
      properties: { description: { type: 'string' }, title: { const: { title: 'kept', description: 'kept' } } },
      default: { description: 'kept' },
      enum: [{ title: 'kept' }],
      items: [{}],
      dependencies: { a: ['description'], b: {} },
      definitions: { D: { anyOf: [{ type: 'null' }], not: {} } },
    });
  });

  it("leaves every schema under schemas/ judging as written: verdicts, errors and defaults filled in", () => {
    const written = instance((s) => s);
    const stripped = instance(withoutAnnotations);
    let judged = 0;
    for (const [file, key] of written.keys) {
      const a = compiled(written.ajv, key);
      const b = compiled(stripped.ajv, stripped.keys.get(file)!);
      // A schema ajv refuses (the build leaves it to be compiled, and refused, at first use) is refused alike.
      if (typeof a === 'string' || typeof b === 'string' || !a || !b) {
        expect(b, file).toEqual(a);
        continue;
      }
      const samples = schemaSamples(a.schema);
      for (const x of [...samples, ...samples.flatMap((s) => Array.from({ length: 12 }, (_, k) => mutated(structuredClone(s), k)))]) {
        const [xa, xb] = [structuredClone(x), structuredClone(x)];
        expect({ ok: b(xb), errors: b.errors ?? null, data: xb }, file).toEqual({ ok: a(xa), errors: a.errors ?? null, data: xa });
        judged++;
      }
    }
    expect(written.keys.size).toBeGreaterThan(50);
    expect(judged).toBeGreaterThan(1000);
  });
});
