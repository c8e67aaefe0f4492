import { readFileSync } from 'node:fs';
import type { Node } from 'yaml';
import { yamlLib } from './yaml-lib.ts';
import type { ErrorObject, ValidateFunction } from 'ajv';

/** A problem in a data file, located by file, line and column (1-based) so a user can fix it. */
export class DataFileError extends Error {
  constructor(
    readonly file: string,
    readonly line: number | null,
    readonly column: number | null,
    readonly problem: string,
    readonly fix?: string,
  ) {
    const at = line == null ? file : `${file}:${line}:${column ?? 1}`;
    super(`${at}: ${problem}${fix ? ` (${fix})` : ''}`);
    this.name = 'DataFileError';
  }
}

/** Finds the node at an ajv instance path such as `/turns/0/expect`. */
function nodeAt(root: Node | null, instancePath: string): Node | null {
  const { isMap, isSeq } = yamlLib();
  let node: Node | null = root;
  for (const raw of instancePath.split('/').slice(1)) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (isMap(node)) {
      const pair = node.items.find((p) => (p.key as { value?: unknown } | null)?.value === key);
      node = (pair?.value as Node | undefined) ?? null;
    } else if (isSeq(node)) {
      node = (node.items[Number(key)] as Node | undefined) ?? null;
    } else return node;
  }
  return node;
}

/** For an unknown key, point at the key itself rather than the enclosing map. */
function keyNodeAt(root: Node | null, e: ErrorObject): Node | null {
  const parent = nodeAt(root, e.instancePath);
  if (e.keyword === 'additionalProperties' && yamlLib().isMap(parent)) {
    const name = (e.params as { additionalProperty: string }).additionalProperty;
    const pair = parent.items.find((p) => (p.key as { value?: unknown } | null)?.value === name);
    if (pair?.key) return pair.key as Node;
  }
  return parent;
}

/**
 * Parses YAML text and validates it against a compiled schema. Every syntax or schema problem
 * becomes a DataFileError naming the file, line and column; the first one is thrown.
 */
export function loadYamlValidated<T>(file: string, validate: ValidateFunction<T>, text?: string): T {
  const source = text ?? readFileSync(file, 'utf8');
  const { LineCounter, parseDocument } = yamlLib();
  const lineCounter = new LineCounter();
  const doc = parseDocument(source, { lineCounter, prettyErrors: true, uniqueKeys: true });
  const syntax = doc.errors[0];
  if (syntax) {
    const pos = syntax.linePos?.[0];
    throw new DataFileError(file, pos?.line ?? null, pos?.col ?? null, `malformed YAML: ${syntax.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '')}`);
  }
  const data: unknown = doc.toJS();
  if (validate(data)) return data;
  const errors = validate.errors ?? [];
  // Unknown keys first: they are the most common and most actionable mistake.
  const first = errors.find((e) => e.keyword === 'additionalProperties') ?? errors[0]!;
  const node = keyNodeAt(doc.contents, first);
  const pos = node?.range ? lineCounter.linePos(node.range[0]) : null;
  const where = first.instancePath || '(top level)';
  let problem = `${where}: ${first.message ?? first.keyword}`;
  let fix: string | undefined;
  if (first.keyword === 'additionalProperties') {
    const name = (first.params as { additionalProperty: string }).additionalProperty;
    problem = `unknown key '${name}' at ${where}`;
    fix = 'remove it or check its spelling against the schema';
  } else if (first.keyword === 'enum') {
    fix = `allowed: ${((first.params as { allowedValues: unknown[] }).allowedValues ?? []).join(', ')}`;
  }
  const more = errors.length > 1 ? ` [+${errors.length - 1} more]` : '';
  throw new DataFileError(file, pos?.line ?? null, pos?.col ?? null, problem + more, fix);
}
