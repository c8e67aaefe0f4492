// Types of schema-annotations.mjs for the TypeScript that imports it (tests).

/** `schema` without annotation keywords (description, title, $comment, examples) wherever a subschema sits. */
export function withoutAnnotations(schema: unknown): unknown;
