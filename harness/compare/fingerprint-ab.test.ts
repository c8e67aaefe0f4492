import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CliIO } from '../io/cli-io.ts';
import { SetupError } from '../errors.ts';
import { loadReport } from '../report/find-report.ts';
import type { RunSuiteOptions, RunSuiteResult } from '../suite/run-suite-options.ts';
import { REPO_ROOT } from '../../test/support/temp.ts';
import { runFingerprintAb, withFingerprint, type FingerprintArmOptions, type SharedRunOptions } from './fingerprint-ab.ts';

const io: CliIO = { out: () => {}, err: () => {}, isTTY: false, progress: () => {}, env: {}, cwd: '/work/x' };
const shared: SharedRunOptions = {
  workloadsDir: './workloads', workloadNames: ['fix-a-bug-small'], includeMarginal: false, provider: 'auto',
  model: 'haiku', baseline: 'sonnet', seedPasses: 2, seed: 7, temperature: 0, showProgress: false,
};
// 2026-11-23T00:00:00Z in microseconds.
const NOW_US = Date.UTC(2026, 10, 23) * 1000;

/** A runSuite stand-in that records what it was asked and answers with the A3 fixture, honouring (or ignoring) the version. */
function fakeRunSuite(honour = true) {
  const calls: (RunSuiteOptions & Partial<FingerprintArmOptions>)[] = [];
  const fn = async (opts: RunSuiteOptions & Partial<FingerprintArmOptions>): Promise<RunSuiteResult> => {
    calls.push(opts);
    const report = structuredClone(loadReport(join(REPO_ROOT, 'test/fixtures/reports/a3.json')).report);
    if (honour && opts.fingerprintVersion) report.provenance.fingerprint_version = opts.fingerprintVersion;
    return { report, dbPath: opts.dbPath!, jsonPath: opts.jsonPath! };
  };
  return { calls, fn };
}

describe('runFingerprintAb (bench compare v1 v2)', () => {
  it('runs A3 twice with the same seeds and workloads, v1 then v2, each with its own DBs under compare-<ts>/', async () => {
    const fake = fakeRunSuite();
    const result = await runFingerprintAb({ run: shared, outDir: 'out', embeddingProvider: 'local:hashing-384', nowUs: NOW_US }, io, fake.fn);
    const dir = '/work/x/out/compare-2026-11-23T00-00-00Z';
    expect(result.dir).toBe(dir);
    expect(fake.calls).toHaveLength(2);
    const [v1, v2] = fake.calls;
    for (const c of [v1!, v2!]) expect(c).toMatchObject({ ...shared, protocol: 'a3' });
    expect(v1).toMatchObject({ fingerprintVersion: 'v1', embeddingProvider: null, dbPath: `${dir}/v1.db`, patternsDbPath: `${dir}/v1.patterns.db`, jsonPath: `${dir}/v1.json` });
    expect(v2).toMatchObject({ fingerprintVersion: 'v2', embeddingProvider: 'local:hashing-384', dbPath: `${dir}/v2.db`, patternsDbPath: `${dir}/v2.patterns.db`, jsonPath: `${dir}/v2.json` });
    expect(result.v2.report.provenance.fingerprint_version).toBe('v2');
  });

  it('refuses a runner that ignored the fingerprint version (a v1-vs-v1 run posing as an A/B)', async () => {
    const fake = fakeRunSuite(false);
    await expect(runFingerprintAb({ run: shared, outDir: 'out', embeddingProvider: 'local:hashing-384', nowUs: NOW_US }, io, fake.fn)).rejects.toThrow(SetupError);
    await expect(runFingerprintAb({ run: shared, outDir: 'out', embeddingProvider: 'local:hashing-384', nowUs: NOW_US }, io, fake.fn)).rejects.toThrow(/v2\.json: asked runSuite for fingerprint v2 but the report says v1/);
  });

  it('withFingerprint adds the arm options to the run options unchanged', () => {
    const base: RunSuiteOptions = { ...shared, protocol: 'a3', dbPath: null, jsonPath: null, patternsDbPath: null };
    expect(withFingerprint(base, { fingerprintVersion: 'v2', embeddingProvider: 'test:deterministic-8' })).toEqual({ ...base, fingerprintVersion: 'v2', embeddingProvider: 'test:deterministic-8' });
  });
});
