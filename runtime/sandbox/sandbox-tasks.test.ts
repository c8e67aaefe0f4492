import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { descendantTasks, type ProcReader } from './sandbox-tasks.ts';

/** A process table as /proc would show it: pid -> [threads, child pids of its first thread]. */
function fakeProc(table: Record<number, { threads: number; children: number[] }>): ProcReader {
  return {
    threads: (pid) => (table[pid] ? Array.from({ length: table[pid].threads }, (_, i) => pid * 1000 + i).map((t, i) => (i === 0 ? pid : t)) : []),
    children: (pid, tid) => (tid === pid ? (table[pid]?.children ?? []) : []),
  };
}

describe('descendantTasks (what a normal user\'s process-count hit is confirmed by)', () => {
  it('counts every thread of every descendant, not the root itself', () => {
    const proc = fakeProc({ 10: { threads: 1, children: [11] }, 11: { threads: 1, children: [12, 13] }, 12: { threads: 4, children: [] }, 13: { threads: 1, children: [] } });
    expect(descendantTasks(10, proc)).toBe(6);
  });

  it('a root that is gone, or has no children, counts 0; a process listed twice counts once', () => {
    expect(descendantTasks(99, fakeProc({}))).toBe(0);
    expect(descendantTasks(1, fakeProc({ 1: { threads: 1, children: [] } }))).toBe(0);
    expect(descendantTasks(1, fakeProc({ 1: { threads: 1, children: [2, 2] }, 2: { threads: 1, children: [1] } }))).toBe(1);
  });

  it('equals the sum of the threads of a random tree below the root', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat({ max: 20 }), fc.integer({ min: 1, max: 5 })), { maxLength: 30 }), (spec) => {
        // Process i+2 hangs under an earlier process (or the root, 1), with its own thread count.
        const table: Record<number, { threads: number; children: number[] }> = { 1: { threads: 1, children: [] } };
        spec.forEach(([parent, threads], i) => {
          const pid = i + 2;
          const p = Math.min(parent + 1, pid - 1);
          table[pid] = { threads, children: [] };
          table[p]!.children.push(pid);
        });
        expect(descendantTasks(1, fakeProc(table))).toBe(spec.reduce((n, [, t]) => n + t, 0));
      }),
    );
  });
});
