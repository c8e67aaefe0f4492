import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
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

  it("keeps each workload's turn difficulties against its files, answers from them as from the script, and keeps nothing of a broken script", () => {
    const cache = tempDir();
    vi.stubEnv('METIS_BENCH_CACHE_DIR', cache);
    const dir = tempDir();
    for (const name of ['fix-a-bug-small', 'multi-step-with-delegation']) cpSync(join(WORKLOADS, name), join(dir, name), { recursive: true });
    const kept = () => readdirSync(join(cache, 'parsed')).filter((f) => f.startsWith('sim-truth-'));
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
    const entries = kept().map((f) => JSON.parse(readFileSync(join(cache, 'parsed', f), 'utf8')) as { files: string[]; data: unknown });
    for (const e of entries) {
      expect(e.files.map((f) => basename(f))).toEqual(['workload.yaml', 'workspace', 'check', 'sim.yaml']);
      expect(e.data).toEqual(scriptDifficulties(loadSimScript(e.files[3]!)));
    }

    // A sim.yaml that does not load is refused on every ask, and nothing is kept of it.
    writeFileSync(join(dir, 'fix-a-bug-small', 'sim.yaml'), 'turns: 1\n');
    for (let i = 0; i < 2; i++) {
      const truth = simTruthFor(simRunIn(dir));
      if (!('pSolved' in truth)) throw new Error('a sim run has a true oracle');
      expect(() => truth.pSolved('fix-a-bug-small', 'haiku')).toThrow(/sim\.yaml/);
    }
    expect(kept()).toHaveLength(2);
  });
  it('answers again from what it kept without reading an unchanged workload, and refuses one broken since, whatever it kept', () => {
    const cache = tempDir();
    vi.stubEnv('METIS_BENCH_CACHE_DIR', cache);
    const dir = tempDir();
    cpSync(join(WORKLOADS, 'fix-a-bug-small'), join(dir, 'fix-a-bug-small'), { recursive: true });
    const ask = () => {
      const truth = simTruthFor(simRunIn(dir));
      if (!('pSolved' in truth)) throw new Error('a sim run has a true oracle');
      return truth.pSolved('fix-a-bug-small', 'haiku');
    };
    const first = ask();
    expect(first).toBeTypeOf('number');
    // Asked again with its files unchanged: answered from what was kept, not from the files (an entry altered
    // by hand changes the answer).
    expect(ask()).toBe(first);
    const [entry] = readdirSync(join(cache, 'parsed')).filter((f) => f.startsWith('sim-truth-'));
    const kept = join(cache, 'parsed', entry!);
    const text = readFileSync(kept, 'utf8');
    const altered = JSON.parse(text) as { data: number[] };
    writeFileSync(kept, JSON.stringify({ ...altered, data: altered.data.map(() => 0) }));
    expect(ask()).not.toBe(first);
    writeFileSync(kept, text);
    expect(ask()).toBe(first);
    const yaml = join(dir, 'fix-a-bug-small', 'workload.yaml');
    const bytes = readFileSync(yaml);
    // Broken with a later mtime: loaded again and refused as before, though an answer was kept for it.
    writeFileSync(yaml, 'name: fix-a-bug-small\nnot_a_key: 1\n');
    utimesSync(yaml, new Date(), new Date(Date.now() + 5_000));
    expect(() => ask()).toThrow(/fix-a-bug-small/);
    // Mended: answered again. Its script gone: no truth for it (null), as a load without sim.yaml gives.
    writeFileSync(yaml, bytes);
    expect(ask()).toBe(first);
    rmSync(join(dir, 'fix-a-bug-small', 'sim.yaml'));
    expect(ask()).toBeNull();
    // Its workspace gone: refused, as loading it is.
    rmSync(join(dir, 'fix-a-bug-small', 'workspace'), { recursive: true });
    expect(() => ask()).toThrow(/missing workspace/);
  });
});

/** A model's sim competence from the shipped registry. */
function competenceOf(model: string): number {
  return loadModelRegistry().resolve(model).sim.competence;
}
