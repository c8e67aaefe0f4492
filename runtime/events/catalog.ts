import { createHash, type Hash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { basename, isAbsolute, join, relative, sep } from 'node:path';
import type { ValidateFunction } from 'ajv';
import { formatAjvErrors, precompiledValidator, SCHEMAS_DIR, sharedAjv, validatorFor } from '../core/schemas.ts';
import type { EventCatalogFile, EventTypeEntry, KnownEventType } from '../../schemas/types/events.ts';
import { EventCatalogError } from './errors.ts';

/** Default location of `catalog.json` and the per-type payload schemas. */
export const EVENTS_SCHEMA_DIR = join(SCHEMAS_DIR, 'events');

/** The loaded catalog: each type's floor, typical actor and precompiled payload validator. */
export interface EventCatalog {
  readonly version: number;
  /** SHA-256 of catalog.json and every payload schema as read: changes with any edit that could change a verdict. */
  readonly digest: string;
  readonly entries: readonly EventTypeEntry[];
  /** The catalog line for `type`, or undefined for a type this catalog does not know. */
  entry(type: string): EventTypeEntry | undefined;
  /** The compiled payload validator for `type`, or undefined when unknown. */
  validator(type: string): ValidateFunction | undefined;
  has(type: string): boolean;
}

/** The catalog's digest as it starts: catalog.json's text, length first. */
const catalogDigestOf = (catalogText: string): Hash => createHash('sha256').update(`${catalogText.length}:`).update(catalogText);

/** Adds a payload schema's text to the digest, under the file's name, not its path: another checkout gives the same digest. */
function digestSchema(digest: Hash, file: string, text: string): void {
  const name = basename(file);
  digest.update(`${name.length}:${text.length}:${name}`).update(text);
}

/** Reads and parses a payload schema, adding its text to the catalog's digest. */
function readPayloadSchema(file: string, digest: Hash): Record<string, unknown> {
  if (!existsSync(file)) throw new EventCatalogError(file, 'payload schema file is missing');
  try {
    const text = readFileSync(file, 'utf8');
    digestSchema(digest, file, text);
    return JSON.parse(text) as Record<string, unknown>;
  } catch (err) {
    throw new EventCatalogError(file, `not valid JSON: ${(err as Error).message}`);
  }
}

/** Compiles once per `$id` on the shared ajv, so reloading a catalog never re-adds a schema. */
function compilePayloadSchema(file: string, schema: Record<string, unknown>): ValidateFunction {
  const id = typeof schema.$id === 'string' ? schema.$id : undefined;
  // The shipped schemas are compiled ahead of time in dist/ (a catalog read from elsewhere never is).
  const shipped = relative(SCHEMAS_DIR, file);
  const pre = shipped.startsWith('..') || isAbsolute(shipped) ? undefined : precompiledValidator(shipped.split(sep).join('/'), () => schema);
  if (pre) return pre;
  try {
    const ajv = sharedAjv();
    return (id && ajv.getSchema(id)) || ajv.compile(schema);
  } catch (err) {
    throw new EventCatalogError(file, `not a valid JSON Schema: ${(err as Error).message}`);
  }
}

/**
 * Reads `catalog.json` from `dir`, validates it against `catalog.schema.json` and reads every type's
 * payload schema (`<type>.json` beside it), compiled at the type's first `validator` call. Adding a type =
 * a schema file + a catalog line.
 */
export function loadEventCatalog(dir: string = EVENTS_SCHEMA_DIR): EventCatalog {
  const file = join(dir, 'catalog.json');
  let data: unknown;
  let digest: Hash;
  try {
    const text = readFileSync(file, 'utf8');
    digest = catalogDigestOf(text);
    data = JSON.parse(text);
  } catch (err) {
    throw new EventCatalogError(file, `cannot read catalog: ${(err as Error).message}`);
  }
  const check = validatorFor<EventCatalogFile>('events/catalog.schema.json');
  if (!check(data)) throw new EventCatalogError(file, formatAjvErrors(check.errors).join('; '));
  const entries = new Map<string, EventTypeEntry>();
  const schemas = new Map<string, Record<string, unknown>>();
  for (const entry of data.types) {
    if (entries.has(entry.type)) throw new EventCatalogError(file, `type ${entry.type} is listed twice`);
    entries.set(entry.type, Object.freeze({ ...entry, parents: Object.freeze([...entry.parents]) as string[] }));
    schemas.set(entry.type, readPayloadSchema(join(dir, `${entry.type}.json`), digest));
  }
  // Compiled (or loaded precompiled) at first use: a reader that trusts a run's seal validates no payload.
  const validators = new Map<string, ValidateFunction>();
  const validator = (type: string): ValidateFunction | undefined => {
    let v = validators.get(type);
    const schema = schemas.get(type);
    if (!v && schema) validators.set(type, (v = compilePayloadSchema(join(dir, `${type}.json`), schema)));
    return v;
  };
  const list = Object.freeze([...entries.values()]);
  return {
    version: data.version,
    digest: digest.digest('hex'),
    entries: list,
    entry: (type) => entries.get(type),
    validator,
    has: (type) => entries.has(type),
  };
}

let defaultCatalog: EventCatalog | undefined;

/** The project's catalog (schemas/events/), loaded and compiled on first use. */
export function eventCatalog(): EventCatalog {
  defaultCatalog ??= loadEventCatalog();
  return defaultCatalog;
}

/**
 * The version and digest the catalog in `dir` loads with (EventCatalog's), from the files' text alone: nothing is
 * validated, parsed beyond catalog.json's list or compiled, so a reader that only compares a stamp (analyze of a
 * sealed run) does not load the catalog. Files that cannot be read or parsed give the error loading the catalog gives.
 */
export function eventCatalogDigest(dir: string = EVENTS_SCHEMA_DIR): { version: number; digest: string } {
  if (defaultCatalog && dir === EVENTS_SCHEMA_DIR) return { version: defaultCatalog.version, digest: defaultCatalog.digest };
  try {
    const text = readFileSync(join(dir, 'catalog.json'), 'utf8');
    const data = JSON.parse(text) as { version: number; types: { type: string }[] };
    const digest = catalogDigestOf(text);
    for (const { type } of data.types) {
      const file = join(dir, `${type}.json`);
      digestSchema(digest, file, readFileSync(file, 'utf8'));
    }
    if (Number.isInteger(data.version)) return { version: data.version, digest: digest.digest('hex') };
  } catch {
    // Told apart by loading it below.
  }
  const catalog = dir === EVENTS_SCHEMA_DIR ? eventCatalog() : loadEventCatalog(dir);
  return { version: catalog.version, digest: catalog.digest };
}

/** True for a type in the project's catalog; subscribers use it to skip types from a newer catalog. */
export function isKnownEventType(type: string): type is KnownEventType {
  return eventCatalog().has(type);
}
