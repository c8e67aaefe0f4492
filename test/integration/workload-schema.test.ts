import { cpSync, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadWorkload, discoverWorkloads, selectWorkloads } from '../../harness/workloads/load-workload.ts';
import { SetupError } from '../../harness/errors.ts';
import { workloadKind } from '../../harness/workloads/workload-kind.ts';
import { REPO_ROOT, tempDir } from '../support/temp.ts';

const WORKLOADS = join(REPO_ROOT, 'workloads');

/** A minimal valid workload directory whose workload.yaml is `yaml`. */
function workloadDir(yaml: string, name = 'tiny'): string {
  const dir = join(tempDir(), name);
  mkdirSync(join(dir, 'workspace'), { recursive: true });
  writeFileSync(join(dir, 'workspace', 'README.md'), 'hello\n');
  writeFileSync(join(dir, 'workload.yaml'), yaml);
  return dir;
}

const VALID = `name: tiny
description: a tiny workload
suite_version: 1
signal_strength: marginal
turns:
  - prompt: "say hi"
    expect:
      max_tool_calls: 3
expect:
  max_total_cost_usd: 0.5
`;

function setupError(fn: () => unknown): SetupError {
  try {
    fn();
  } catch (e) {
    if (e instanceof SetupError) return e;
    throw e;
  }
  throw new Error('expected a SetupError');
}

describe('workload schema (benchmark.md §10.1 tests 1-3)', () => {
  it('1. accepts every shipped workload', () => {
    const dirs = readdirSync(WORKLOADS).filter((n) => !n.includes('.'));
    // Query streams (cache-*) are another workload kind: a stream.yaml instead of a workload.yaml.
    const withYaml = dirs.filter((n) => existsSync(join(WORKLOADS, n, 'workload.yaml')));
    expect(dirs.filter((n) => !withYaml.includes(n)).every((n) => existsSync(join(WORKLOADS, n, 'stream.yaml')))).toBe(true);
    // Matrix workloads (kind: matrix) are the third: recorded outcomes, never in the agent selection.
    const matrices = withYaml.filter((n) => workloadKind(join(WORKLOADS, n)) === 'matrix');
    expect(matrices).toEqual(expect.arrayContaining(['routellm-mmlu', 'routellm-gsm8k']));
    const names = withYaml.filter((n) => !matrices.includes(n));
    const loaded = discoverWorkloads(WORKLOADS).map((w) => w.spec.name);
    expect(loaded.length).toBeGreaterThanOrEqual(3);
    expect(loaded).toEqual(expect.arrayContaining(['fix-a-bug-small', 'write-a-doc-from-notes', 'multi-turn-refactor']));
    expect(loaded.sort()).toEqual(names.sort());
  });

  it('accepts a minimal valid workload and applies defaults', () => {
    const w = loadWorkload(workloadDir(VALID));
    expect(w.spec.turns[0]!.expect!.stop_reason).toBe('end_turn');
  });

  it('2. rejects an unknown top-level key, naming file, line and column', () => {
    const dir = workloadDir(`${VALID}foo: bar\n`);
    const e = setupError(() => loadWorkload(dir));
    expect(e.message).toContain(join(dir, 'workload.yaml'));
    expect(e.message).toMatch(/workload\.yaml:11:1: unknown key 'foo' at \(top level\)/);
  });

  it('3. rejects an unknown per-turn expect key', () => {
    const e = setupError(() => loadWorkload(workloadDir(VALID.replace('max_tool_calls: 3', 'max_tool_calls: 3\n      max_tool_cals: 4'))));
    expect(e.message).toMatch(/workload\.yaml:9:7: unknown key 'max_tool_cals' at \/turns\/0\/expect/);
  });

  it('3. rejects an unknown aggregate expect key', () => {
    const e = setupError(() => loadWorkload(workloadDir(`${VALID}  min_llm_cals: 2\n`)));
    expect(e.message).toMatch(/workload\.yaml:11:3: unknown key 'min_llm_cals' at \/expect/);
  });

  it('rejects an unknown evaluate key and an unknown check key', () => {
    expect(setupError(() => loadWorkload(workloadDir(`${VALID}evaluate:\n  rubrik: heuristic\n`))).message).toMatch(/unknown key 'rubrik' at \/evaluate/);
    expect(setupError(() => loadWorkload(workloadDir(`${VALID}evaluate:\n  check:\n    command: "true"\n    timeout: 3\n`))).message).toMatch(/unknown key 'timeout' at \/evaluate\/check/);
  });

  it('rejects malformed YAML with its line', () => {
    const e = setupError(() => loadWorkload(workloadDir('name: tiny\nturns: [\n  - prompt: x\n')));
    expect(e.message).toMatch(/workload\.yaml:\d+:\d+: malformed YAML/);
  });

  it('rejects a wrong type with the path of the value', () => {
    const e = setupError(() => loadWorkload(workloadDir(VALID.replace('max_tool_calls: 3', 'max_tool_calls: three'))));
    expect(e.message).toMatch(/workload\.yaml:8:23: \/turns\/0\/expect\/max_tool_calls: must be integer/);
  });

  it('rejects a missing workspace and a name that does not match its directory', () => {
    const dir = workloadDir(VALID);
    const other = join(tempDir(), 'other');
    cpSync(dir, other, { recursive: true });
    expect(setupError(() => loadWorkload(other)).message).toMatch(/name 'tiny' does not match its directory 'other'/);
    const noWs = join(tempDir(), 'tiny');
    mkdirSync(noWs);
    writeFileSync(join(noWs, 'workload.yaml'), VALID);
    expect(setupError(() => loadWorkload(noWs)).message).toMatch(/missing workspace\/ directory/);
  });

  it('marginal workloads need --include-marginal; a name bypasses the filter', () => {
    const all = discoverWorkloads(WORKLOADS);
    const marginal = all.filter((w) => w.spec.signal_strength === 'marginal');
    expect(setupError(() => selectWorkloads(marginal, { names: [], includeMarginal: false })).message).toContain('--include-marginal');
    // With high-signal workloads on disk, no flag selects exactly those.
    const high = all.filter((w) => (w.spec.signal_strength ?? 'high') === 'high').map((w) => w.spec.name);
    expect(high.length).toBeGreaterThanOrEqual(3);
    expect(selectWorkloads(all, { names: [], includeMarginal: false }).map((w) => w.spec.name)).toEqual(high);
    expect(selectWorkloads(all, { names: ['fix-a-bug-small'], includeMarginal: false }).map((w) => w.spec.name)).toEqual(['fix-a-bug-small']);
    expect(setupError(() => selectWorkloads(all, { names: ['nope'], includeMarginal: false })).message).toMatch(/unknown workload 'nope'/);
  });
});
