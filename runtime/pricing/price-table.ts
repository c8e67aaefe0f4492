import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Decimal } from 'decimal.js';
import { cachedParse } from '../core/parsed-file-cache.ts';
import { formatAjvErrors, validatorFor } from '../core/schemas.ts';
import { DataFileError } from '../core/yaml-document.ts';
import type { PriceTableFile } from '../../schemas/types/price-table.ts';
import type { ModelRates, PriceTable } from './rates.ts';

/** The shipped price table, `runtime/data/prices.json`. */
export const DEFAULT_PRICE_TABLE_PATH = fileURLToPath(new URL('../data/prices.json', import.meta.url));

/** Builds a PriceTable from already-validated file contents (tests build small ones in memory). */
export function createPriceTable(file: PriceTableFile): PriceTable {
  const byModel = new Map<string, ModelRates>();
  for (const [model, r] of Object.entries(file.models)) {
    if (!r) continue;
    // Frozen so a caller cannot reprice a model for everyone else sharing the table.
    byModel.set(
      model,
      Object.freeze({
        input: new Decimal(r.input),
        output: new Decimal(r.output),
        cache_read: new Decimal(r.cache_read),
        cache_write: new Decimal(r.cache_write),
      }),
    );
  }
  const models = [...byModel.keys()].sort();
  const embedding = new Map(Object.entries(file.embedding_models ?? {}).flatMap(([id, r]) => (r ? [[id, new Decimal(r.input)] as const] : [])));
  return {
    version: file.version,
    rates: (model) => byModel.get(model),
    models: () => [...models],
    embeddingRate: (embedder) => embedding.get(embedder),
  };
}

/** Parses and schema-validates a price table file; every problem is a DataFileError naming the file. */
export function parsePriceTable(file: string, text: string): PriceTable {
  return createPriceTable(validPriceTableFile(file, text));
}

/** A price table file's contents, parsed and schema-validated; every problem is a DataFileError naming the file. */
function validPriceTableFile(file: string, text: string): PriceTableFile {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    throw new DataFileError(file, null, null, `malformed JSON: ${(e as Error).message}`);
  }
  const validate = validatorFor<PriceTableFile>('price-table.schema.json');
  if (!validate(data)) {
    throw new DataFileError(file, null, null, formatAjvErrors(validate.errors).join('; '), 'see schemas/price-table.schema.json');
  }
  return data;
}

/**
 * Loads a price table from disk (default: the shipped `runtime/data/prices.json`). An unchanged file's validated
 * contents come from the parsed-file cache while dist/ runs: its validator is neither loaded nor run (about 1 ms
 * of a cold analyze).
 */
export function loadPriceTable(path: string = DEFAULT_PRICE_TABLE_PATH): PriceTable {
  const file = cachedParse('price-table', resolve(path), () => {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (e) {
      throw new DataFileError(path, null, null, `cannot read price table: ${(e as Error).message}`);
    }
    return validPriceTableFile(path, text);
  });
  return { ...createPriceTable(file), path };
}
