import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DataFileError } from '../core/yaml-document.ts';
import { loadGlobalRoutingConfig, loadRoutingConfig, readRoutingFile } from './load-routing-config.ts';
import { defaultRoutingConfig, mergeRoutingConfig, type RoutingConfig } from './routing-config.ts';

const SPEC_PATTERN_DEFAULTS = {
  cost_weight: 0.05,
  min_confidence: 0.05,
  min_sample_size: 5,
  min_eval_confidence: 0.5,
  // Not in the spec: the K-NN options of issue 13, defaults chosen by bench compare --arm (docs/decisions.md);
  // scoring uniform with min_similarity 0 is the spec's math.
  scoring: 'similarity_weighted',
  min_similarity: 0.5,
  // Issue 20: exploration applies to scoring expected_gain only; off by default.
  exploration: 'none',
  exploration_regret_budget: 50,
  fingerprint_version: 'v1',
  embedding_provider: null,
  embedding_alpha: 0.6,
  embedding_cache_max_rows: 10000,
  embedding_cache_max_age_days: 180,
};

function workspaceWith(yaml: string | null): string {
  const root = mkdtempSync(join(tmpdir(), 'ws-'));
  if (yaml !== null) {
    mkdirSync(join(root, '.metis'));
    writeFileSync(join(root, '.metis', 'routing.yaml'), yaml);
  }
  return root;
}

const global: RoutingConfig = {
  ...defaultRoutingConfig(),
  default_model: 'anthropic:claude-haiku-4-5',
  rules: [{ name: 'global-docs', model: 'sonnet', match: { file_extensions: ['.md'] } }],
  tiers: { fast: 'gpt-5-mini', balanced: 'gpt-5', deep: 'opus' },
  pattern: { ...defaultRoutingConfig().pattern, cost_weight: 0.1, min_sample_size: 8 },
};

describe('routing config', () => {
  it('takes its defaults from the schema, as the spec lists them', () => {
    const d = defaultRoutingConfig();
    expect(d.pattern).toEqual(SPEC_PATTERN_DEFAULTS);
    expect(d).toMatchObject({ default_model: null, rules: [] });
    expect(Object.keys(d.tiers).sort()).toEqual(['balanced', 'deep', 'fast']);
  });

  it('a workspace file overrides the global config section by section', () => {
    const root = workspaceWith(`
rules:
  - name: ws-commits
    model: haiku
    match: { intent_tags: [commit] }
pattern:
  min_sample_size: 3
`);
    const r = loadRoutingConfig(global, root);
    expect(r.invalid).toBeNull();
    expect(r.policy_path).toBe(join(root, '.metis', 'routing.yaml'));
    // rules: replaced wholesale; tiers and default_model: absent from the file, so the global's stay.
    expect(r.config.rules.map((x) => x.name)).toEqual(['ws-commits']);
    expect(r.config.tiers).toEqual(global.tiers);
    expect(r.config.default_model).toBe('anthropic:claude-haiku-4-5');
    // pattern: the workspace section replaces the global one; keys it leaves out take schema defaults.
    expect(r.config.pattern).toEqual({ ...SPEC_PATTERN_DEFAULTS, min_sample_size: 3 });
    expect(r.workspace_default_model).toBeNull();
    expect(r.global_default_model).toBe('anthropic:claude-haiku-4-5');
  });

  it('reports the workspace default separately from the global one', () => {
    const r = loadRoutingConfig(global, workspaceWith('default_model: sonnet\n'));
    expect(r).toMatchObject({ workspace_default_model: 'sonnet', global_default_model: 'anthropic:claude-haiku-4-5' });
    expect(r.config.default_model).toBe('sonnet');
    expect(r.config.rules).toEqual(global.rules);
  });

  it('without a workspace file, or with an empty one, the global config is in force', () => {
    for (const root of [workspaceWith(null), workspaceWith(''), workspaceWith('# all commented out\n')]) {
      const r = loadRoutingConfig(global, root);
      expect(r.config).toEqual(global);
      expect(r.invalid).toBeNull();
    }
  });

  it('an invalid workspace file keeps the last good config and reports file and line', () => {
    const root = workspaceWith(`rules:
  - name: fine
    model: haiku
    match:
      intent_tag: [commit]
`);
    const r = loadRoutingConfig(global, root);
    expect(r.config).toEqual(global);
    expect(r.invalid).toEqual({
      policy_path: join(root, '.metis', 'routing.yaml'),
      errors: [expect.stringContaining(`${join(root, '.metis', 'routing.yaml')}:5:7: unknown key 'intent_tag'`)],
      using_last_known_good: true,
    });
  });

  it('after a good load, a broken edit keeps the previous workspace config', () => {
    const good = loadRoutingConfig(global, workspaceWith('default_model: opus\npattern: { cost_weight: 0.2 }\n'));
    const broken = workspaceWith('default_model: opus\npattern: { cost_weight: 2 }\n');
    const r = loadRoutingConfig(global, broken, good);
    expect(r.config).toEqual(good.config);
    expect(r.workspace_default_model).toBe('opus');
    expect(r.invalid?.errors[0]).toMatch(/routing\.yaml:2:\d+: \/pattern\/cost_weight: must be <= 1/);
  });

  it('reports malformed YAML and unknown top-level keys with their line', () => {
    expect(loadRoutingConfig(global, workspaceWith('rules: [\n')).invalid?.errors[0]).toMatch(/routing\.yaml:\d+:\d+: malformed YAML/);
    expect(loadRoutingConfig(global, workspaceWith('default_model: x\nroutes: []\n')).invalid?.errors[0]).toMatch(
      /routing\.yaml:2:1: unknown key 'routes'/,
    );
  });

  it('rejects a bad regex, an empty match and duplicate rule names', () => {
    const rule = (match: string, name = 'r') => `  - name: ${name}\n    model: haiku\n    match: ${match}\n`;
    expect(loadRoutingConfig(global, workspaceWith(`rules:\n${rule('{ message_regex: "(unclosed" }')}`)).invalid?.errors[0]).toMatch(
      /message_regex: must match format "regex"/,
    );
    expect(loadRoutingConfig(global, workspaceWith(`rules:\n${rule('{}')}`)).invalid?.errors[0]).toMatch(/match: must NOT have fewer than 1 properties/);
    const dup = `rules:\n${rule('{ intent_tags: [a] }')}${rule('{ intent_tags: [b] }')}`;
    expect(loadRoutingConfig(global, workspaceWith(dup)).invalid?.errors[0]).toMatch(/\/rules\/1\/name: duplicate rule name 'r'/);
  });

  it('loads a global file over the defaults and throws DataFileError when it is invalid', () => {
    const root = workspaceWith('default_model: haiku\ntiers: { fast: tiny }\n');
    const path = join(root, '.metis', 'routing.yaml');
    const g = loadGlobalRoutingConfig(path);
    expect(g.default_model).toBe('haiku');
    // A tiers section replaces the default one; tiers it omits take the schema defaults.
    expect(g.tiers).toEqual({ ...defaultRoutingConfig().tiers, fast: 'tiny' });
    const bad = join(workspaceWith('tiers: { quick: x }\n'), '.metis', 'routing.yaml');
    expect(() => readRoutingFile(bad)).toThrow(DataFileError);
    expect(() => loadGlobalRoutingConfig(bad)).toThrow(/routing\.yaml:1:10: unknown key 'quick'/);
  });

  it('merge keeps every base section the file does not name', () => {
    expect(mergeRoutingConfig(global, {})).toEqual(global);
  });
});
