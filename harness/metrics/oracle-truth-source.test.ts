import { cpSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { tempDir } from '../../test/support/temp.ts';
import type { Provenance } from '../../schemas/types/report.ts';
import { loadSimScript } from '../../runtime/providers/sim/sim-script.ts';
import { scriptDifficulties, scriptSolvedProbability } from './oracle-sim-truth.ts';
import { simTruthFor } from './oracle-truth-source.ts';
import { loadModelRegistry } from '../../runtime/models/index.ts';

const WORKLOADS = join(import.meta.dirname, '..', '..', 'workloads');

/** The provenance fields the true oracle reads, for a sim run whose workloads were in `dir`. */
const simRunIn = (dir: string) => ({ actual_provider: 'sim', workloads_dir: dir, temperature: 0 }) as Provenance;

describe('simTruthFor', () => {
  it("reads the run's workloads only: a broken workload the run never ran does not stop the report", () => {
    const dir = tempDir();
    for (const name of ['fix-a-bug-small', 'multi-step-with-delegation']) cpSync(join(WORKLOADS, name), join(dir, name), { recursive: true });
    // Another agent workload in the same folder, invalid: discovering every workload there refused it.
    mkdirSync(join(dir, 'a-broken-one', 'workspace'), { recursive: true });
    writeFileSync(join(dir, 'a-broken-one', 'workload.yaml'), 'name: a-broken-one\nnot_a_key: 1\n');
    const truth = simTruthFor(simRunIn(dir));
    const shipped = simTruthFor(simRunIn(WORKLOADS));
    if (!('pSolved' in truth) || !('pSolved' in shipped)) throw new Error('a sim run has a true oracle');
    for (const model of ['haiku', 'sonnet']) {
      expect(truth.pSolved('fix-a-bug-small', model)).toBeTypeOf('number');
      expect(truth.pSolved('fix-a-bug-small', model)).toBe(shipped.pSolved('fix-a-bug-small', model));
    }
    // Names that are no agent workload there: none, a matrix workload, a path.
    cpSync(join(WORKLOADS, 'routellm-gsm8k', 'workload.yaml'), join(dir, 'routellm-gsm8k', 'workload.yaml'), { recursive: true });
    for (const name of ['no-such-workload', 'routellm-gsm8k', '..', '../workloads/fix-a-bug-small', '.']) expect(truth.pSolved(name, 'haiku'), name).toBeNull();
    // The broken one, asked for, is refused as loading it always was.
    expect(() => truth.pSolved('a-broken-one', 'haiku')).toThrow(/a-broken-one/);
  });

  afterEach(() => vi.unstubAllEnvs());

  it("keeps each script's turn difficulties, not the script, and answers from them as from the script; a broken script keeps nothing", () => {
    const cache = tempDir();
    vi.stubEnv('METIS_BENCH_CACHE_DIR', cache);
    const dir = tempDir();
    for (const name of ['fix-a-bug-small', 'multi-step-with-delegation']) cpSync(join(WORKLOADS, name), join(dir, name), { recursive: true });
    const kept = () => readdirSync(join(cache, 'parsed')).filter((f) => f.startsWith('sim-difficulties-'));
    for (const round of [1, 2]) {
      const truth = simTruthFor(simRunIn(dir));
      if (!('pSolved' in truth)) throw new Error('a sim run has a true oracle');
      for (const name of ['fix-a-bug-small', 'multi-step-with-delegation']) {
        // Workers' turns count: multi-step-with-delegation has some.
        const script = loadSimScript(join(dir, name, 'sim.yaml'));
        for (const model of ['haiku', 'sonnet']) expect(truth.pSolved(name, model), `${name} ${model} round ${round}`).toBe(scriptSolvedProbability(script, competenceOf(model), 0));
      }
      expect(kept()).toHaveLength(2);
    }
    const entries = kept().map((f) => JSON.parse(readFileSync(join(cache, 'parsed', f), 'utf8')) as { file: string; data: unknown });
    for (const e of entries) expect(e.data).toEqual(scriptDifficulties(loadSimScript(e.file)));

    // A sim.yaml that does not load is refused on every ask, and nothing is kept of it.
    writeFileSync(join(dir, 'fix-a-bug-small', 'sim.yaml'), 'turns: 1\n');
    for (let i = 0; i < 2; i++) {
      const truth = simTruthFor(simRunIn(dir));
      if (!('pSolved' in truth)) throw new Error('a sim run has a true oracle');
      expect(() => truth.pSolved('fix-a-bug-small', 'haiku')).toThrow(/sim\.yaml/);
    }
    expect(kept()).toHaveLength(2);
  });
});

/** A model's sim competence from the shipped registry. */
function competenceOf(model: string): number {
  return loadModelRegistry().resolve(model).sim.competence;
}
