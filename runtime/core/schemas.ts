import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import type * as AjvModule from 'ajv';
import type { Ajv, ErrorObject, Options, ValidateFunction } from 'ajv';
import { PRECOMPILED } from './precompiled-validators.ts';

/** Absolute path of the repository's `schemas/` folder. */
export const SCHEMAS_DIR = fileURLToPath(new URL('../../schemas/', import.meta.url));

/**
 * The shared instance's options (all errors, defaults applied, strict about the schemas themselves), as
 * data: scripts/build-dist.mjs compiles dist/'s validators with the same file.
 */
const AJV_OPTIONS = JSON.parse(readFileSync(new URL('./ajv-options.json', import.meta.url), 'utf8')) as Options;

/**
 * Schemas of precompiled validators by path, registered with the shared instance when it is first made: read
 * only then, so a command that never makes it (analyze) reads no schema file (the report's is 50 KB of JSON).
 */
const pending = new Map<string, () => Record<string, unknown>>();
let instance: Ajv | null = null;

/**
 * The one shared ajv instance, made at first use: with dist/'s precompiled validators a reader (analyze)
 * never compiles a schema, so it never loads ajv and ajv-formats (a quarter of its start).
 */
export function sharedAjv(): Ajv {
  if (instance) return instance;
  // CommonJS packages, loaded synchronously on demand so callers stay synchronous.
  const require = createRequire(import.meta.url);
  const { Ajv: AjvClass } = require('ajv') as typeof AjvModule;
  const addFormats = require('ajv-formats') as { default: (ajv: Ajv) => Ajv };
  const made = addFormats.default(new AjvClass(AJV_OPTIONS));
  for (const [relPath, schema] of pending) register(made, relPath, schema());
  pending.clear();
  instance = made;
  return made;
}

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
  if (!instance) pending.set(relPath, schema);
  else register(instance, relPath, schema());
  return v;
}

/** Adds the schema at `relPath` to `ajv` under its $id (else its path), unless it holds that id already. */
function register(ajv: Ajv, relPath: string, s: Record<string, unknown>): void {
  const id = typeof s.$id === 'string' ? s.$id : relPath;
  // Not checked against the meta-schema again (that compiles it, the cost saved here): the build compiled it.
  const key = typeof s.$id === 'string' ? undefined : relPath;
  if (!ajv.schemas[id] && !ajv.refs[id]) ajv.addSchema(s, key, undefined, false);
}

/** A compiled validator for a schema file under `schemas/`, compiled once per process. */
export function validatorFor<T>(relPath: string): ValidateFunction<T> {
  let v = cache.get(relPath);
  if (!v) v = precompiledValidator(relPath, () => readSchema(relPath));
  if (v) cache.set(relPath, v);
  if (!v) {
    const schema = readSchema(relPath);
    // A schema another schema already pulled in by $id is compiled once, not twice.
    const ajv = sharedAjv();
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
