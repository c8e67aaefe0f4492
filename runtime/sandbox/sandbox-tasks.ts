import { readdirSync, readFileSync } from 'node:fs';

/**
 * Counting a confined command's processes from outside, for the process-count bound of a normal
 * user's harness: RLIMIT_NPROC refuses a fork silently (the command sees EAGAIN) and no counter
 * records it, so a refusal the command reports is confirmed by the sandbox's task count, which is
 * what the limit counts (the sandbox's user namespace holds nothing else).
 */

/** How /proc is read: the children of one thread, and a process's thread count; null when gone. */
export interface ProcReader {
  threads(pid: number): readonly number[];
  children(pid: number, tid: number): readonly number[];
}

/** Reads the live /proc (`children` lists need CONFIG_PROC_CHILDREN, which distributions enable). */
export const liveProc: ProcReader = {
  threads: (pid) => {
    try {
      return readdirSync(`/proc/${pid}/task`).map(Number);
    } catch {
      return []; // exited
    }
  },
  children: (pid, tid) => {
    try {
      return readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').split(' ').filter(Boolean).map(Number);
    } catch {
      return [];
    }
  },
};

/**
 * The tasks (threads included) of `root`'s descendants, `root` itself excluded: in a confining
 * tier, the sandbox's processes (an orphan is adopted by the namespace's init, itself one).
 */
export function descendantTasks(root: number, proc: ProcReader = liveProc): number {
  let n = 0;
  const seen = new Set<number>([root]);
  const stack = proc.threads(root).flatMap((tid) => proc.children(root, tid));
  while (stack.length > 0) {
    const pid = stack.pop()!;
    if (seen.has(pid)) continue;
    seen.add(pid);
    const tids = proc.threads(pid);
    n += tids.length;
    for (const tid of tids) stack.push(...proc.children(pid, tid));
  }
  return n;
}
