import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DataFileError } from '../core/yaml-document.ts';
import { loadPriceTable, parsePriceTable } from './price-table.ts';

describe('loadPriceTable', () => {
  it('loads the shipped table with the published rates', () => {
    const t = loadPriceTable();
    expect(t.version).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(t.models()).toEqual([
      'anthropic:claude-haiku-4-5',
      'anthropic:claude-opus-4-5',
      'anthropic:claude-sonnet-4-6',
      'mistral:mixtral-8x7b-instruct-v0.1',
      'openai:gpt-4-1106-preview',
      'openai:gpt-5',
      'openai:gpt-5-mini',
    ]);
    const rates = (m: string) => {
      const r = t.rates(m)!;
      return [r.input, r.output, r.cache_read, r.cache_write].map((d) => d.toString());
    };
    expect(rates('anthropic:claude-haiku-4-5')).toEqual(['1', '5', '0.1', '1.25']);
    expect(rates('anthropic:claude-sonnet-4-6')).toEqual(['3', '15', '0.3', '3.75']);
    expect(rates('anthropic:claude-opus-4-5')).toEqual(['5', '25', '0.5', '6.25']);
    // OpenAI has no cache-write surcharge: writes cost the plain input rate.
    expect(rates('openai:gpt-5-mini')).toEqual(['0.25', '2', '0.025', '0.25']);
    expect(rates('openai:gpt-5')).toEqual(['1.25', '10', '0.125', '1.25']);
    // The two RouteLLM models, priced only to cost their recorded outcomes (workloads/routellm-*): no cache discount.
    expect(rates('openai:gpt-4-1106-preview')).toEqual(['10', '30', '10', '10']);
    expect(rates('mistral:mixtral-8x7b-instruct-v0.1')).toEqual(['0.7', '0.7', '0.7', '0.7']);
  });

  it('answers undefined for a model it does not price', () => {
    expect(loadPriceTable().rates('anthropic:claude-nonexistent')).toBeUndefined();
  });

  it('rejects a float rate, naming the file and the field', () => {
    const dir = mkdtempSync(join(tmpdir(), 'prices-'));
    const file = join(dir, 'prices.json');
    writeFileSync(
      file,
      JSON.stringify({
        version: 'x',
        currency: 'USD',
        unit: 'per_million_tokens',
        models: { 'a:b': { input: 1, output: '1', cache_read: '1', cache_write: '1' } },
      }),
    );
    expect(() => loadPriceTable(file)).toThrow(DataFileError);
    expect(() => loadPriceTable(file)).toThrow(/prices\.json.*\/models\/a:b\/input: must be string/);
  });

  it('rejects unknown keys and malformed JSON', () => {
    expect(() => parsePriceTable('p.json', '{"version":"v","currency":"USD","unit":"per_million_tokens","models":{},"extra":1}')).toThrow(
      /must NOT have additional properties 'extra'/,
    );
    expect(() => parsePriceTable('p.json', '{')).toThrow(/p\.json: malformed JSON/);
  });

  it('prices paid embedders per million input tokens, each with its source and date; an embedding entry without them is refused', () => {
    const t = loadPriceTable();
    expect(t.embeddingRate!('openai:text-embedding-3-small')!.toFixed()).toBe('0.02');
    expect(t.embeddingRate!('local:hashing-384')).toBeUndefined();
    const head = '{"version":"v","currency":"USD","unit":"per_million_tokens","models":{},"embedding_models":';
    expect(parsePriceTable('p.json', `${head}{"openai:e":{"input":"0.5","source":"s","as_of":"2026-11"}}}`).embeddingRate!('openai:e')!.toFixed()).toBe('0.5');
    expect(() => parsePriceTable('p.json', `${head}{"openai:e":{"input":"0.5"}}}`)).toThrow(/must have required property 'source'/);
    expect(() => parsePriceTable('p.json', `${head}{"openai:e":{"input":0.5,"source":"s","as_of":"2026-11"}}}`)).toThrow(/embedding_models\/openai:e\/input: must be string/);
  });

  it('reads an unchanged file back from the parsed-file cache, unvalidated, and validates an edited one', () => {
    const dir = mkdtempSync(join(tmpdir(), 'prices-cached-'));
    const file = join(dir, 'prices.json');
    const table = (input: string | number) => JSON.stringify({ version: 'x', currency: 'USD', unit: 'per_million_tokens', models: { 'a:b': { input, output: '1', cache_read: '1', cache_write: '1' } } });
    writeFileSync(file, table('2'));
    const cache = join(dir, 'cache');
    const before = process.env.METIS_BENCH_CACHE_DIR;
    process.env.METIS_BENCH_CACHE_DIR = cache;
    try {
      expect(loadPriceTable(file).rates('a:b')!.input.toString()).toBe('2');
      const kept = readdirSync(join(cache, 'parsed')).filter((f) => f.startsWith('price-table-'));
      expect(kept).toHaveLength(1);
      // What the next load reads is the kept entry, not the file: a rate changed there is what it answers.
      const at = join(cache, 'parsed', kept[0]!);
      writeFileSync(at, readFileSync(at, 'utf8').replace('"input":"2"', '"input":"3"'));
      expect(loadPriceTable(file).rates('a:b')!.input.toString()).toBe('3');
      // An edit (another size) is parsed and validated again.
      writeFileSync(file, table(20));
      expect(() => loadPriceTable(file)).toThrow(/prices\.json.*\/models\/a:b\/input: must be string/);
    } finally {
      if (before === undefined) delete process.env.METIS_BENCH_CACHE_DIR;
      else process.env.METIS_BENCH_CACHE_DIR = before;
    }
  });
});
