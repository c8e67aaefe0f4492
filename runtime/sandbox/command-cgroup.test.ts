import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cgroupParent, createCommandCgroups } from './command-cgroup.ts';

// A fake /sys/fs/cgroup: plain directories and files stand in for the kernel's.
const roots: string[] = [];
afterEach(() => roots.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));
function fakeRoot(dirs: string[], files: Record<string, string> = {}): string {
  const root = mkdtempSync(join(tmpdir(), 'metis-cgroup-'));
  roots.push(root);
  for (const d of dirs) {
    mkdirSync(join(root, d), { recursive: true });
    writeFileSync(join(root, d, 'cgroup.procs'), '');
  }
  for (const [f, text] of Object.entries(files)) writeFileSync(join(root, f), text);
  return root;
}

describe('cgroupParent (where a command cgroup is made)', () => {
  it('v1: under the harness\'s own cgroup of that controller, so a limit set above the harness still applies', () => {
    const root = fakeRoot(['memory', 'memory/process_api/abc', 'pids']);
    const self = () => '8:pids:/\n4:memory:/process_api/abc\n0::/\n';
    expect(cgroupParent('memory', root, self)).toBe(join(root, 'memory/process_api/abc'));
    expect(cgroupParent('pids', root, self)).toBe(join(root, 'pids'));
  });

  it('v1: none when the own cgroup directory is missing; v2: none unless the harness sits in the root cgroup', () => {
    expect(cgroupParent('memory', fakeRoot(['memory']), () => '4:memory:/gone\n')).toBeNull();
    const v2 = fakeRoot([], { 'cgroup.controllers': 'cpu memory pids\n', 'cgroup.subtree_control': 'memory pids\n' });
    expect(cgroupParent('memory', v2, () => '0::/user.slice/x.scope\n')).toBeNull();
    expect(cgroupParent('memory', v2, () => '0::/\n')).toBe(v2);
  });
});

describe('createCommandCgroups', () => {
  it('v1: one cgroup per controller, each with its limit; the kill count is read from memory.oom_control', () => {
    const root = fakeRoot(['memory', 'pids']);
    const cg = createCommandCgroups({ maxProcesses: 32, maxMemoryBytes: 256 * 1024 ** 2 }, { pids: join(root, 'pids'), memory: join(root, 'memory') })!;
    expect(cg.bounds).toEqual(['pids', 'memory']);
    expect(cg.procsFiles).toHaveLength(2);
    const [pidsDir, memDir] = cg.procsFiles.map((f) => join(f, '..'));
    expect(readFileSync(join(pidsDir!, 'pids.max'), 'utf8')).toBe('32');
    expect(readFileSync(join(memDir!, 'memory.limit_in_bytes'), 'utf8')).toBe(String(256 * 1024 ** 2));
    expect(cg.oomKills()).toBe(0);
    writeFileSync(join(memDir!, 'memory.oom_control'), 'oom_kill_disable 0\nunder_oom 0\noom_kill 3\n');
    writeFileSync(join(pidsDir!, 'pids.events'), 'max 0\n');
    expect(cg.oomKills()).toBe(3);
    expect(cg.pidsHit()).toBe(false);
    writeFileSync(join(pidsDir!, 'pids.events'), 'max 7\n');
    expect(cg.pidsHit()).toBe(true);
  });

  it('v2: one cgroup holds both bounds (a process is in one v2 cgroup only); kills from memory.events', () => {
    const root = fakeRoot([], { 'cgroup.controllers': 'memory pids\n' });
    const cg = createCommandCgroups({ maxProcesses: 32, maxMemoryBytes: 64 * 1024 ** 2 }, { pids: root, memory: root })!;
    expect(cg.procsFiles).toHaveLength(1);
    const dir = join(cg.procsFiles[0]!, '..');
    expect(readFileSync(join(dir, 'pids.max'), 'utf8')).toBe('32');
    expect(readFileSync(join(dir, 'memory.max'), 'utf8')).toBe(String(64 * 1024 ** 2));
    writeFileSync(join(dir, 'memory.events'), 'low 0\nhigh 0\nmax 12\noom 1\noom_kill 1\n');
    expect(cg.oomKills()).toBe(1);
  });

  it('no parent for a controller: that bound is not made; none at all: null', () => {
    const root = fakeRoot(['pids']);
    expect(createCommandCgroups({ maxProcesses: 8, maxMemoryBytes: 1 }, { pids: join(root, 'pids'), memory: null })!.bounds).toEqual(['pids']);
    expect(createCommandCgroups({ maxProcesses: 8 }, { pids: null, memory: null })).toBeNull();
  });
});
