import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../test/support/temp.ts';
import type { Provenance } from '../../schemas/types/report.ts';
import { simTruthFor } from './oracle-truth-source.ts';

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
});
