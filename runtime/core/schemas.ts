import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { Ajv, type ErrorObject, type Options, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { PRECOMPILED } from './precompiled-validators.ts';

/** Absolute path of the repository's `schemas/` folder. */
export const SCHEMAS_DIR = fileURLToPath(new URL('../../schemas/', import.meta.url));

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

/**
 * The shared instance's options (all errors, defaults applied, strict about the schemas themselves), as
 * data: scripts/build-dist.mjs compiles dist/'s validators with the same file.
 */
const AJV_OPTIONS = JSON.parse(readFileSync(new URL('./ajv-options.json', import.meta.url), 'utf8')) as Options;

/** One shared ajv instance. */
export const ajv = addFormats(new Ajv(AJV_OPTIONS));

const cache = new Map<string, ValidateFunction>();

/** Reads and parses a JSON file under `schemas/` (e.g. `workload.schema.json`, `events/turn.started.json`). */
export function readSchema(relPath: string): Record<string, unknown> {
  return JSON.parse(readFileSync(join(SCHEMAS_DIR, relPath), 'utf8')) as Record<string, unknown>;
}

/**
 * The validator dist/ compiled ahead of time for `relPath`, if any. Its schema is still registered (not
 * compiled) with the shared instance, so schemas compiled later that `$ref` it, and `ajv.getSchema` of its
 * definitions, find it as before.
 */
export function precompiledValidator(relPath: string, schema: () => Record<string, unknown>): ValidateFunction | undefined {
  const v = PRECOMPILED?.get(relPath);
  if (!v) return undefined;
  const s = schema();
  const id = typeof s.$id === 'string' ? s.$id : relPath;
  // Not checked against the meta-schema again (that compiles it, the cost saved here): the build compiled it.
  if (!ajv.schemas[id] && !ajv.refs[id]) ajv.addSchema(s, typeof s.$id === 'string' ? undefined : relPath, undefined, false);
  return v;
}

/** A compiled validator for a schema file under `schemas/`, compiled once per process. */
export function validatorFor<T>(relPath: string): ValidateFunction<T> {
  let v = cache.get(relPath);
  if (!v) v = precompiledValidator(relPath, () => readSchema(relPath));
  if (v) cache.set(relPath, v);
  if (!v) {
    const schema = readSchema(relPath);
    // A schema another schema already pulled in by $id is compiled once, not twice.
    const known = typeof schema.$id === 'string' ? ajv.getSchema(schema.$id) : undefined;
    v = known ?? ajv.compile(schema);
    cache.set(relPath, v);
  }
  return v as ValidateFunction<T>;
}

/** One line per ajv error: `/turns/0/expect: must NOT have additional property 'foo'`. */
export function formatAjvErrors(errors: readonly ErrorObject[] | null | undefined): string[] {
  return (errors ?? []).map((e) => {
    const where = e.instancePath || '(root)';
    const extra =
      e.keyword === 'additionalProperties'
        ? ` '${String((e.params as { additionalProperty: string }).additionalProperty)}'`
        : e.keyword === 'enum'
          ? ` (${((e.params as { allowedValues: unknown[] }).allowedValues ?? []).join(', ')})`
          : '';
    return `${where}: ${e.message ?? e.keyword}${extra}`;
  });
}
