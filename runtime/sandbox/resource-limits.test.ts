import { linkSync, mkdirSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultResourceLimits, diskUsage, diskUse, loadResourceLimits, memoryLimitMessage, perProcessMemoryRefusal, prlimitArgs, withOverrides } from './resource-limits.ts';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));
const fresh = () => {
  const d = mkdtempSync(join(tmpdir(), 'metis-limits-'));
  dirs.push(d);
  return d;
};

describe('diskUsage (what workspace_max_bytes counts)', () => {
  it('counts a sparse file by its apparent size, though it allocates nothing', () => {
    const d = fresh();
    writeFileSync(join(d, 'sparse.bin'), '');
    truncateSync(join(d, 'sparse.bin'), 256 * 1024 ** 2);
    const u = diskUsage([d]);
    expect(u.apparent).toBeGreaterThanOrEqual(256 * 1024 ** 2);
    expect(u.allocated).toBeLessThan(1024 ** 2);
    expect(diskUse(u)).toBe(u.apparent);
  });

  it('the apparent total is the sum of the file sizes (a hard link counted once), whatever the tree', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.constantFrom('a', 'b/c', 'b/d', 'e/f/g'), fc.nat({ max: 5000 })), { maxLength: 12 }), (files) => {
        const d = fresh();
        const sizes = new Map<string, number>();
        for (const [rel, size] of files) {
          const p = join(d, `${rel}-${sizes.size}`);
          mkdirSync(join(p, '..'), { recursive: true });
          writeFileSync(p, Buffer.alloc(size, 1));
          sizes.set(p, size);
        }
        const first = [...sizes.keys()][0];
        if (first) linkSync(first, join(d, 'hardlink'));
        const dirsBytes = diskUsage([d]).apparent - [...sizes.values()].reduce((a, b) => a + b, 0);
        // What is left is the directories' own entries: a few KiB each, never a file counted twice.
        expect(dirsBytes).toBeGreaterThanOrEqual(0);
        expect(dirsBytes).toBeLessThan(4096 * 8);
      }),
      { numRuns: 25 },
    );
  });

  it('stops early once past the bound', () => {
    const d = fresh();
    for (let i = 0; i < 50; i++) writeFileSync(join(d, `f${i}`), Buffer.alloc(1000));
    expect(diskUse(diskUsage([d], 2000))).toBeLessThan(10_000);
  });
});

describe('the shipped bounds and --limit', () => {
  it('the shipped file validates and states the documented defaults', () => {
    const l = loadResourceLimits();
    expect(l.sandbox).toEqual({ workspace_max_bytes: 1024 ** 3, max_processes: 256, max_memory_bytes: 4 * 1024 ** 3, rep_max_seconds: 3600, tmp_max_bytes: 256 * 1024 ** 2, workspace_max_files: 100_000, workspace_max_depth: 256 });
    expect(l.run).toEqual({ seed_passes_max: 1000, runs_max: 100, concurrency_max: 64, planned_jobs_max: 100_000 });
  });

  it('an override replaces one bound; an unknown key or a value out of range is refused naming it', () => {
    const base = defaultResourceLimits().sandbox;
    expect(withOverrides(base, ['max_processes=64'])).toEqual({ ...base, max_processes: 64 });
    expect(() => withOverrides(base, ['disk=1'])).toThrow(/--limit "disk=1": use KEY=VALUE with KEY one of workspace_max_bytes/);
    expect(() => withOverrides(base, ['max_processes=2'])).toThrow(/max_processes takes a whole number/);
    expect(() => withOverrides(base, ['max_processes=lots'])).toThrow(/max_processes/);
    expect(() => withOverrides(base, ['rep_max_seconds'])).toThrow(/KEY=VALUE/);
  });

  it('prlimit bounds memory and file size always, and the process count only where a user namespace counts it', () => {
    const l = defaultResourceLimits().sandbox;
    expect(prlimitArgs('/usr/bin/prlimit', l, true)).toEqual(['/usr/bin/prlimit', `--as=${l.max_memory_bytes}`, `--fsize=${l.workspace_max_bytes}`, `--nproc=${l.max_processes}`, '--']);
    expect(prlimitArgs('/usr/bin/prlimit', l, false)).not.toContain(`--nproc=${l.max_processes}`);
  });

  it('with a memory cgroup (a root harness) memory is bounded across processes, so no per-process address-space bound is set', () => {
    const l = defaultResourceLimits().sandbox;
    expect(prlimitArgs('/usr/bin/prlimit', l, false, false)).toEqual(['/usr/bin/prlimit', `--fsize=${l.workspace_max_bytes}`, '--']);
  });
});

describe('what counts as a per-process memory refusal (RLIMIT_AS, no cgroup)', () => {
  it('allocation failures as programs print them', () => {
    expect(perProcessMemoryRefusal('Traceback (most recent call last):\n  File "<string>", line 1, in <module>\nMemoryError\n')).toBe('MemoryError');
    expect(perProcessMemoryRefusal('OSError: [Errno 12] Cannot allocate memory')).toBe('[Errno 12] Cannot allocate memory');
    expect(perProcessMemoryRefusal('sort: memory exhausted\nsh: 1: xz: Cannot allocate memory\n')).toBe(': Cannot allocate memory');
    expect(perProcessMemoryRefusal("terminate called after throwing an instance of 'std::bad_alloc'")).not.toBeNull();
    expect(perProcessMemoryRefusal('FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory')).not.toBeNull();
    expect(perProcessMemoryRefusal('memory allocation of 1073741824 bytes failed\n')).not.toBeNull();
  });

  it('a listing or a sentence that only mentions one is none', () => {
    for (const out of ['src/a.py:12:    except MemoryError:', 'raise MemoryError("x")', 'docs: Cannot allocate memory is what ENOMEM prints.', 'grep -r bad_alloc .', '']) {
      expect(perProcessMemoryRefusal(out)).toBeNull();
    }
  });

  it('the message names the bound, its value and that it is per process, or across processes with the kill count', () => {
    expect(memoryLimitMessage(256 * 1024 ** 2, { evidence: 'MemoryError' })).toBe(
      'resource limit max_memory_bytes (256 MiB per process: RLIMIT_AS, as no memory cgroup can be made here, so not across processes) reached: an allocation was refused ("MemoryError") (raise it with --limit max_memory_bytes=N)',
    );
    expect(memoryLimitMessage(4 * 1024 ** 3, { kills: 2 })).toMatch(/^resource limit max_memory_bytes \(4 GiB across the command's processes, a memory cgroup\) reached: the kernel killed 2 processes/);
  });
});
