import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ModelRegistryFile } from '../../schemas/types/models.ts';
import { DataFileError } from '../core/yaml-document.ts';
import { DEFAULT_MODELS_PATH, loadModelRegistry } from './model-registry.ts';

/** The shipped models file with `edit` applied to its first profile's sim block, written to a temp file. */
function withFirstSim(edit: (sim: Record<string, unknown>) => void): string {
  const file = JSON.parse(readFileSync(DEFAULT_MODELS_PATH, 'utf8')) as ModelRegistryFile;
  edit(file.models[0]!.sim as unknown as Record<string, unknown>);
  const path = join(mkdtempSync(join(tmpdir(), 'models-src-')), 'models.json');
  writeFileSync(path, JSON.stringify(file, null, 2));
  return path;
}

describe('competence_source: every simulated profile says where its competence comes from (issue 11 item 7)', () => {
  it('the shipped profiles all name a source, and an assumed figure says so', () => {
    const file = JSON.parse(readFileSync(DEFAULT_MODELS_PATH, 'utf8')) as ModelRegistryFile;
    for (const m of file.models) {
      expect(['public_benchmark', 'assumed'], m.id).toContain(m.sim.competence_source.kind);
      expect(m.sim.competence_source.note.length, m.id).toBeGreaterThan(10);
    }
    expect(() => loadModelRegistry()).not.toThrow();
  });

  it('a profile without a source is rejected, naming the file', () => {
    const path = withFirstSim((sim) => delete sim['competence_source']);
    expect(() => loadModelRegistry(path)).toThrow(DataFileError);
    expect(() => loadModelRegistry(path)).toThrow(/models\.json.*competence_source/s);
  });

  it('a public benchmark source must name the benchmark, the result and who published it', () => {
    const bare = withFirstSim(
      (sim) =>
        (sim['competence_source'] = {
          kind: 'public_benchmark',
          note: 'from a leaderboard',
        }),
    );
    expect(() => loadModelRegistry(bare)).toThrow(/benchmark/);
    const full = withFirstSim(
      (sim) =>
        (sim['competence_source'] = {
          kind: 'public_benchmark',
          benchmark: 'Example Bench v1',
          result: '61% resolved',
          published_by: 'the benchmark authors, example leaderboard',
          note: 'competence set to the resolved fraction',
        }),
    );
    expect(() => loadModelRegistry(full)).not.toThrow();
  });

  it('an unknown kind is rejected', () => {
    const path = withFirstSim((sim) => (sim['competence_source'] = { kind: 'vibes', note: 'felt right' }));
    expect(() => loadModelRegistry(path)).toThrow(DataFileError);
  });
});
