// A JSON Schema without its annotations, for the validators scripts/build-dist.mjs compiles ahead of time: ajv's
// standalone code copies the schema objects it refers to into the validator, descriptions and all, and a command
// then makes them at every load (the report's validator: 24 of its 322 KB). No validator reads an annotation
// (ajv puts no schema text in its errors unless `verbose`).

/** Annotation keywords. */
const ANNOTATIONS = new Set(['description', 'title', '$comment', 'examples']);
/** Keywords whose value is a schema (for `items`, possibly a list of schemas). */
const SCHEMA_KEYWORDS = new Set(['additionalProperties', 'additionalItems', 'contains', 'propertyNames', 'if', 'then', 'else', 'not', 'items', 'unevaluatedItems', 'unevaluatedProperties']);
/** Keywords whose value is a list of schemas. */
const SCHEMA_LIST_KEYWORDS = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems']);
/** Keywords whose value maps names to schemas (`dependencies`: to a schema or a list of names). */
const SCHEMA_MAP_KEYWORDS = new Set(['properties', 'patternProperties', 'definitions', '$defs', 'dependentSchemas', 'dependencies']);

/**
 * `schema` without annotation keywords at every place the keywords above say a schema sits; anything else whole
 * (a property named `description`, `enum`, `const` and `default` values, a document's other members).
 * @param {unknown} schema
 * @returns {unknown}
 */
export function withoutAnnotations(schema) {
  if (typeof schema !== 'object' || schema === null) return schema;
  if (Array.isArray(schema)) return schema.map(withoutAnnotations);
  const out = {};
  for (const [key, value] of Object.entries(schema)) {
    if (ANNOTATIONS.has(key)) continue;
    if (SCHEMA_KEYWORDS.has(key) || SCHEMA_LIST_KEYWORDS.has(key)) out[key] = withoutAnnotations(value);
    else if (SCHEMA_MAP_KEYWORDS.has(key) && typeof value === 'object' && value !== null && !Array.isArray(value)) {
      out[key] = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, Array.isArray(sub) ? sub : withoutAnnotations(sub)]));
    } else out[key] = value;
  }
  return out;
}
