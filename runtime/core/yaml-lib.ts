// The yaml package, loaded at first parse: a reader whose data files come from the parsed-file cache
// (analyze from dist/) never pays for its ~240 modules.
import { createRequire } from 'node:module';
import type * as Yaml from 'yaml';

type YamlLib = typeof Yaml;
let lib: YamlLib | null = null;

/** The yaml package (its CommonJS build, loaded synchronously so parsers stay synchronous). */
export function yamlLib(): YamlLib {
  lib ??= createRequire(import.meta.url)('yaml') as YamlLib;
  return lib;
}
