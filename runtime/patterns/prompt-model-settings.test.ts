import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultPromptModelSettings, loadPromptModelSettings } from './prompt-model-settings.ts';

describe('the learned scorer\'s knobs are data', () => {
  it('the shipped file validates and holds the dev-chosen values', () => {
    expect(defaultPromptModelSettings()).toMatchObject({ lambda: 4, cluster_prior: 20, k_clusters: 24, seed: 0, refit_growth: 0.25, price_exponent: 1 });
  });

  it('a bad file is refused, naming the file and the field', () => {
    const dir = mkdtempSync(join(tmpdir(), 'prompt-model-'));
    const bad = join(dir, 'prompt-model.json');
    writeFileSync(bad, JSON.stringify({ lambda: 0, cluster_prior: 20, k_clusters: 24, seed: 0, refit_growth: 0.25, price_exponent: 0 }));
    expect(() => loadPromptModelSettings(bad)).toThrow(/prompt-model\.json[\s\S]*lambda/);
    writeFileSync(bad, JSON.stringify({ lambda: 4, cluster_prior: 20, k_clusters: 24, seed: 0, refit_growth: 0.25, price_exponent: 0, lamda: 3 }));
    expect(() => loadPromptModelSettings(bad)).toThrow(/prompt-model\.json[\s\S]*lamda/);
    writeFileSync(bad, JSON.stringify({ lambda: 4, cluster_prior: 20, k_clusters: 24, seed: 0, refit_growth: 0.25, price_exponent: 2 }));
    expect(() => loadPromptModelSettings(bad)).toThrow(/prompt-model\.json[\s\S]*price_exponent/);
  });
});
