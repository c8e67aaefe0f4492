// V8's compiled code for dist/'s standalone validators, made at build time, so that a command validating a
// large report loads the validator without parsing and compiling it. The report's validator is 334 KB of
// generated code: requiring it and its first call (V8 compiles each function when first called) cost about
// 20 ms of every `analyze`; with the cache about 9 ms. The cache is made after validating sample instances
// of the schema, so it holds every function those calls compiled. A cache V8 refuses (another Node, other
// flags) is ignored by V8 itself: the validator is then compiled as before.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { Script } from 'node:vm';

/** The CommonJS module wrapper a cached validator is compiled in (the cache belongs to this exact source). */
export const WRAPPER = ['(function (exports, require, module, __filename, __dirname) {', '\n})'];

/** Compiles the validator file `filename` in WRAPPER, with `cachedData` if given; its script and exports. */
export function compileValidator(filename, cachedData) {
  const script = new Script(`${WRAPPER[0]}${readFileSync(filename, 'utf8')}${WRAPPER[1]}`, { filename, ...(cachedData ? { cachedData } : {}) });
  const module = { exports: {} };
  script.runInThisContext().call(module.exports, module.exports, createRequire(filename), module, filename, dirname(filename));
  return { script, validate: module.exports };
}

/**
 * The code cache of the validator file `filename`, made after it validated samples of `schema`: instances with
 * every property of every object and one item per array (valid or not, with all errors collected every part
 * is visited), one per branch of the schema's widest oneOf/anyOf.
 */
export function validatorCodeCache(filename, schema) {
  const { script, validate } = compileValidator(filename);
  for (const sample of schemaSamples(schema)) validate(sample);
  return script.createCachedData();
}

/** Instances of `schema` that between them hold every property, item and branch its validator checks. */
export function schemaSamples(schema) {
  const n = Math.max(1, widestChoice(schema));
  return Array.from({ length: n }, (_, k) => sampleOf(schema, schema, k, 0));
}

function widestChoice(s) {
  if (Array.isArray(s)) return Math.max(0, ...s.map(widestChoice));
  if (!s || typeof s !== 'object') return 0;
  const own = Math.max(s.oneOf?.length ?? 0, s.anyOf?.length ?? 0, Array.isArray(s.enum) ? s.enum.length : 0, Array.isArray(s.type) ? s.type.length : 0);
  return Math.max(own, ...Object.values(s).map(widestChoice));
}

/** A `#/...` pointer into `root`, or undefined (a reference to another file). */
function resolve(root, ref) {
  if (!ref.startsWith('#')) return undefined;
  return ref
    .slice(1)
    .split('/')
    .filter(Boolean)
    .reduce((node, key) => (node && typeof node === 'object' ? node[key.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined), root);
}

/** The k-th sample of `s` (k picks the branch, enum value and type where there is a choice). */
function sampleOf(s, root, k, depth) {
  if (!s || typeof s !== 'object' || depth > 24) return null;
  if (typeof s.$ref === 'string') {
    const target = resolve(root, s.$ref);
    return target === undefined ? {} : sampleOf(target, root, k, depth + 1);
  }
  if ('const' in s) return s.const;
  if (Array.isArray(s.enum)) return s.enum[k % s.enum.length];
  const choice = s.oneOf ?? s.anyOf;
  if (Array.isArray(choice) && !s.type && !s.properties) return sampleOf(choice[k % choice.length], root, k, depth + 1);
  if (Array.isArray(s.allOf) && !s.type && !s.properties) return sampleOf(s.allOf[0], root, k, depth + 1);
  const types = Array.isArray(s.type) ? s.type : s.type ? [s.type] : s.properties ? ['object'] : s.items ? ['array'] : [];
  const type = types.length === 0 ? null : types[k % types.length];
  switch (type) {
    case 'object': {
      const o = {};
      for (const [name, p] of Object.entries(s.properties ?? {})) o[name] = sampleOf(p, root, k, depth + 1);
      if (s.additionalProperties && typeof s.additionalProperties === 'object') o.sample_key = sampleOf(s.additionalProperties, root, k, depth + 1);
      return o;
    }
    case 'array':
      return s.items ? [sampleOf(Array.isArray(s.items) ? s.items[0] : s.items, root, k, depth + 1)] : [];
    case 'string':
      return 'x';
    case 'integer':
    case 'number':
      return typeof s.minimum === 'number' ? s.minimum : 0;
    case 'boolean':
      return false;
    default:
      return null;
  }
}
