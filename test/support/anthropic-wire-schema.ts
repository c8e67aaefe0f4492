// Validators for the transcribed Anthropic Messages API schemas in schemas/third-party/anthropic/ (see its README).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { SCHEMAS_DIR } from '../../runtime/core/schemas.ts';

const dir = join(SCHEMAS_DIR, 'third-party', 'anthropic');
const read = (f: string) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as Record<string, unknown>;

/** The request schema document (with its x-headers and x-limits). */
export const REQUEST_SCHEMA = read('messages-request.schema.json');
/** The response schema document (with its examples). */
export const RESPONSE_SCHEMA = read('messages-response.schema.json');

// Not strict: the documents carry x-* annotations for the checks JSON Schema cannot express.
const ajv = new Ajv2020({ allErrors: true, strict: false, allowUnionTypes: true });
/** Validates a POST /v1/messages body. */
export const validateRequest: ValidateFunction = ajv.compile(REQUEST_SCHEMA);
/** Validates a 200 Message body. */
export const validateResponse: ValidateFunction = ajv.compile(RESPONSE_SCHEMA);

/** Ajv errors as `path: message`, for assertion messages. */
export function errorsOf(v: ValidateFunction): string[] {
  return (v.errors ?? []).map((e) => `${e.instancePath || '/'}: ${e.message ?? ''}`);
}

/** How many blocks of a request body carry cache_control (the API allows at most 4). */
export function cacheBreakpoints(body: unknown): number {
  let n = 0;
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') {
      const o = v as Record<string, unknown>;
      if (o.cache_control) n += 1;
      // input_schema is the tool's own JSON Schema, not a block of the request.
      for (const [k, x] of Object.entries(o)) if (k !== 'input_schema') walk(x);
    }
  };
  walk([(body as Record<string, unknown>).tools, (body as Record<string, unknown>).system, (body as Record<string, unknown>).messages]);
  return n;
}

/** The anthropic-version the SDK in use sends (read from the SDK's client, so an upgrade shows up). */
export function sdkAnthropicVersion(): string {
  const src = readFileSync(join(SCHEMAS_DIR, '..', 'node_modules', '@anthropic-ai', 'sdk', 'client.js'), 'utf8');
  const m = /'anthropic-version': '([0-9-]+)'/.exec(src);
  if (!m) throw new Error('cannot find the anthropic-version the SDK sends in @anthropic-ai/sdk/client.js');
  return m[1]!;
}
