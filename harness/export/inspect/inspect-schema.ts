import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { SCHEMAS_DIR } from '../../../runtime/core/schemas.ts';

/** Where the shipped copy of Inspect's viewer OpenAPI document lives (origin and licence in its README). */
export const INSPECT_SCHEMA_PATH = join(SCHEMAS_DIR, 'third-party', 'inspect', 'inspect-openapi.json');

const DOC_ID = 'https://inspect.aisi.org.uk/inspect-openapi.json';
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
let validator: ValidateFunction | undefined;

/**
 * The compiled validator of Inspect's `EvalLog` (components.schemas.EvalLog, JSON Schema 2020-12).
 * Not strict: the document carries OpenAPI keywords (discriminator, title) Ajv does not know; `oneOf`
 * still decides each event's type without the discriminator.
 */
export function inspectEvalLogValidator(): ValidateFunction {
  if (validator) return validator;
  const doc = JSON.parse(readFileSync(INSPECT_SCHEMA_PATH, 'utf8')) as Record<string, unknown>;
  const ajv = addFormats(new Ajv2020({ allErrors: true, strict: false, allowUnionTypes: true }));
  ajv.addSchema({ $id: DOC_ID, components: doc.components }, DOC_ID);
  validator = ajv.compile({ $ref: `${DOC_ID}#/components/schemas/EvalLog` });
  return validator;
}

/** Ajv's errors as `path: message` lines, deepest paths first (a oneOf's branch noise sits higher up), at most `max`. */
export function inspectErrors(errors: readonly ErrorObject[] | null | undefined, max = 10): string[] {
  const sorted = [...(errors ?? [])].sort((a, b) => b.instancePath.split('/').length - a.instancePath.split('/').length);
  return [...new Set(sorted.map((e) => `${e.instancePath || '/'}: ${e.message ?? 'invalid'}`))].slice(0, max);
}
