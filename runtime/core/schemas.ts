import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';

/** Absolute path of the repository's `schemas/` folder. */
export const SCHEMAS_DIR = fileURLToPath(new URL('../../schemas/', import.meta.url));

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

/** One shared ajv instance: all errors, defaults applied, strict about the schemas themselves. */
export const ajv = addFormats(new Ajv({ allErrors: true, useDefaults: true, strict: true, allowUnionTypes: true }));

const cache = new Map<string, ValidateFunction>();

/** Reads and parses a JSON file under `schemas/` (e.g. `workload.schema.json`, `events/turn.started.json`). */
export function readSchema(relPath: string): Record<string, unknown> {
  return JSON.parse(readFileSync(join(SCHEMAS_DIR, relPath), 'utf8')) as Record<string, unknown>;
}

/** A compiled validator for a schema file under `schemas/`, compiled once per process. */
export function validatorFor<T>(relPath: string): ValidateFunction<T> {
  let v = cache.get(relPath);
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
