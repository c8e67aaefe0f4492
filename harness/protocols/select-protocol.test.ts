import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../provenance.ts';
import { SetupError } from '../errors.ts';
import { matrixProtocol } from './matrix-run-protocol.ts';
import { protocolFor } from './protocols.ts';
import { selectProtocol } from './select-protocol.ts';
import { streamProtocol } from './stream-protocol.ts';

const WORKLOADS = join(PACKAGE_ROOT, 'workloads');

describe('bench run picks its protocol once, from the workloads’ kind and --protocol', () => {
  it.each([
    [['routellm-gsm8k'], 'single', 'matrix'],
    [['routellm-gsm8k'], 'a3', 'matrix'],
    [['cache-agent'], 'single', 'query-streams'],
    [['cache-agent', 'cache-docflow'], 'a3', 'query-streams'],
    [['fix-a-bug-small'], 'single', 'single'],
    [['fix-a-bug-small'], 'a3', 'a3'],
    [[], 'a3', 'a3'],
  ] as const)('%j with --protocol %s runs %s', (names, flag, expected) => {
    expect(selectProtocol(WORKLOADS, names, flag)).toBe(expected);
  });

  it('refuses to mix kinds or to run two matrices at once (exit 2)', () => {
    expect(() => selectProtocol(WORKLOADS, ['routellm-gsm8k', 'fix-a-bug-small'], 'single')).toThrow(SetupError);
    expect(() => selectProtocol(WORKLOADS, ['cache-agent', 'fix-a-bug-small'], 'single')).toThrow(SetupError);
    expect(() => selectProtocol(WORKLOADS, ['routellm-gsm8k', 'routellm-mmlu'], 'single')).toThrow(/one matrix per run/);
  });

  it('each agent protocol name maps to its own passes', () => {
    expect(protocolFor('single').passes.map((p) => p.name)).toEqual(['single']);
    expect(protocolFor('signal').passes.map((p) => p.name)).toEqual(['cheap', 'strong']);
    expect(protocolFor('a3').passes.map((p) => p.name)).toEqual(['A', 'B', 'C', 'D']);
    // A3 holds per-run state (the holdout snapshot): each run gets its own instance.
    expect(protocolFor('a3')).not.toBe(protocolFor('a3'));
  });

  it("A3's own options reach the run only through the protocol: what they add to the provenance", () => {
    expect(protocolFor('a3', { holdout: 'workload', randomArm: false }).provenance).toEqual({ holdout: 'workload', random_arm: false });
    expect(protocolFor('a3').provenance).toEqual({});
    expect(protocolFor('single').provenance).toEqual({});
  });

  it('a stream or setting named twice runs twice, once per pass (runProtocol runs each pass\'s jobs)', () => {
    const streams = streamProtocol(['cache-agent', 'cache-agent']);
    const jobs = streams.plan({ names: ['cache-agent', 'cache-agent'] });
    expect(streams.passes.map((p) => jobs.filter((j) => j.pass === p.name).map((j) => j.stream))).toEqual([['cache-agent'], ['cache-agent']]);
    const matrix = matrixProtocol(['in_sample', 'new_workspace', 'in_sample']);
    const settings = matrix.plan({ settings: ['in_sample', 'new_workspace', 'in_sample'], clusters: 1, folds: 2 });
    expect(matrix.passes.map((p) => settings.filter((j) => j.pass === p.name).map((j) => [j.setting, j.skip !== null]))).toEqual([[['in_sample', false]], [['new_workspace', true]], [['in_sample', false]]]);
  });
});
