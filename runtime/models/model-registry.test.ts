import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DataFileError } from '../core/yaml-document.ts';
import { UnknownModelError } from './model-profile.ts';
import { createModelRegistry, DEFAULT_MODELS_PATH, loadModelRegistry } from './model-registry.ts';

const registry = loadModelRegistry();

function writeTemp(text: string): string {
  const file = join(mkdtempSync(join(tmpdir(), 'models-')), 'models.json');
  writeFileSync(file, text);
  return file;
}

describe('model registry', () => {
  it('resolves the CLI aliases to canonical ids with the spec competences and cache floors', () => {
    const rows = ['haiku', 'sonnet', 'opus', 'gpt-5-mini', 'gpt-5'].map((a) => {
      const p = registry.resolve(a);
      return [a, p.id, p.sim.competence, p.min_cacheable_prefix_tokens, p.capabilities.context_window];
    });
    expect(rows).toEqual([
      ['haiku', 'anthropic:claude-haiku-4-5', 0.6, 4096, 200000],
      ['sonnet', 'anthropic:claude-sonnet-4-6', 0.85, 1024, 200000],
      ['opus', 'anthropic:claude-opus-4-5', 0.92, 4096, 200000],
      ['gpt-5-mini', 'openai:gpt-5-mini', 0.6, 1024, 400000],
      ['gpt-5', 'openai:gpt-5', 0.85, 1024, 400000],
    ]);
    expect(registry.resolve('anthropic:claude-haiku-4-5')).toBe(registry.resolve('haiku'));
    expect(registry.version).toMatch(/\S/);
  });

  it('throws UnknownModelError naming what it knows', () => {
    expect(() => registry.resolve('claude-2')).toThrow(UnknownModelError);
    expect(() => registry.resolve('claude-2')).toThrow(/unknown model 'claude-2'; known: .*haiku/);
  });

  it('rejects a file with an unknown key, naming file and line', () => {
    const text = readFileSync(DEFAULT_MODELS_PATH, 'utf8').replace('"min_cacheable_prefix_tokens": 1024,', '"min_cacheable_prefix_tokens": 1024, "colour": "blue",');
    const file = writeTemp(text);
    const err = (() => {
      try {
        loadModelRegistry(file);
      } catch (e) {
        return e as DataFileError;
      }
      throw new Error('expected an error');
    })();
    expect(err).toBeInstanceOf(DataFileError);
    expect(err.message).toMatch(new RegExp(`^${file}:\\d+:\\d+: unknown key 'colour'`));
  });

  it('rejects an alias claimed by two models', () => {
    const p = registry.resolve('haiku');
    expect(() => createModelRegistry([p, { ...p, id: 'anthropic:other', aliases: ['haiku'] }])).toThrow(/'haiku' is claimed by both/);
    const file = writeTemp(readFileSync(DEFAULT_MODELS_PATH, 'utf8').replace('"aliases": ["opus", "claude-opus-4-5"]', '"aliases": ["sonnet"]'));
    expect(() => loadModelRegistry(file)).toThrow(DataFileError);
  });

  it('rejects an id whose provider part disagrees with its provider', () => {
    const p = registry.resolve('gpt-5');
    expect(() => createModelRegistry([{ ...p, provider: 'anthropic' }])).toThrow(/must start with its provider/);
  });
});
