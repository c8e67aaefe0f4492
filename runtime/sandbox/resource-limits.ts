import { lstatSync, type Stats } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { validatorFor } from '../core/schemas.ts';
import { loadYamlValidated } from '../core/yaml-document.ts';
import type { ResourceLimitsFile } from '../../schemas/types/resource-limits.ts';
import { walkTree, type TreeBound, type TreeBounds } from './tree-walk.ts';

/** The shipped bounds, `runtime/data/resource-limits.json` (defaults stated in docs/threat-model.md). */
export const DEFAULT_RESOURCE_LIMITS_PATH = fileURLToPath(new URL('../data/resource-limits.json', import.meta.url));

/** What one sandboxed command and one rep may use. */
export type SandboxLimits = ResourceLimitsFile['sandbox'];

/** The largest numbers the CLI accepts. */
export type RunBounds = ResourceLimitsFile['run'];

/** Loads and validates a resource-limits file; errors name the file and the field. */
export function loadResourceLimits(path: string = DEFAULT_RESOURCE_LIMITS_PATH): ResourceLimitsFile {
  return loadYamlValidated<ResourceLimitsFile>(path, validatorFor<ResourceLimitsFile>('resource-limits.schema.json'));
}

let shipped: ResourceLimitsFile | null = null;

/** The shipped bounds, read once per process. */
export function defaultResourceLimits(): ResourceLimitsFile {
  shipped ??= loadResourceLimits();
  return shipped;
}

/**
 * A bound a command or rep ran into: the rep ends with `error_class: resource_limit` and this
 * message, which names the bound, its value and where to change it.
 */
export class ResourceLimitError extends Error {
  constructor(
    readonly limit: keyof SandboxLimits,
    message: string,
  ) {
    super(message);
    this.name = 'ResourceLimitError';
  }
}

/** Bytes as the docs write them: whole GiB/MiB when exact, else bytes. */
export function formatBytes(n: number): string {
  const gib = 1024 ** 3;
  const mib = 1024 ** 2;
  if (n % gib === 0) return `${n / gib} GiB`;
  if (n % mib === 0) return `${n / mib} MiB`;
  return `${n} bytes`;
}

/** The message of a `workspace_max_bytes` overrun, naming both measures. */
export function diskLimitMessage(usage: DiskUsage, max: number): string {
  return `resource limit workspace_max_bytes (${formatBytes(max)}) exceeded: the workspace uses ${usage.apparent} bytes apparent, ${usage.allocated} allocated (raise it with --limit workspace_max_bytes=N)`;
}

/** What a command prints when a fork is refused for want of processes (EAGAIN: bash, Python, C's perror, Perl). */
export const FORK_REFUSED = /Resource temporarily unavailable|can(?:no|')t fork/i;

/** The message of a `max_processes` hit: a pids cgroup's refusal, or a refusal confirmed by counting the sandbox's tasks. */
export function processLimitMessage(max: number, tasks: number | null): string {
  const how = tasks === null ? 'the pids cgroup refused a fork' : `a fork was refused with ${tasks} processes running in the sandbox`;
  return `resource limit max_processes (${max}) reached: ${how} (raise it with --limit max_processes=N)`;
}

/**
 * Allocation failures as programs print them, anchored so a listing that merely mentions one
 * (`grep -r MemoryError`) does not match: Python's exception line, strerror(ENOMEM) ending a
 * perror line, C++, Node, Rust and Go.
 */
const ALLOCATION_REFUSED = [
  /^MemoryError\b/m,
  /\[Errno 12\] Cannot allocate memory/,
  /: Cannot allocate memory$/m,
  /terminate called after throwing an instance of 'std::bad_alloc'/,
  /JavaScript heap out of memory/,
  /^memory allocation of \d+ bytes failed/m,
  /^fatal error: runtime: out of memory/m,
] as const;

/** The allocation failure `output` shows, as printed, or null. */
export function perProcessMemoryRefusal(output: string): string | null {
  for (const re of ALLOCATION_REFUSED) {
    const m = re.exec(output);
    if (m) return m[0];
  }
  return null;
}

/**
 * The message of a `max_memory_bytes` hit. Across processes: a memory cgroup killed `kills` of
 * them. Per process (no cgroup here): RLIMIT_AS refused an allocation, which the command printed
 * as `evidence`; the message says the bound is per process.
 */
export function memoryLimitMessage(max: number, hit: { kills: number } | { evidence: string }): string {
  const raise = '(raise it with --limit max_memory_bytes=N)';
  if ('kills' in hit) return `resource limit max_memory_bytes (${formatBytes(max)} across the command's processes, a memory cgroup) reached: the kernel killed ${hit.kills} process${hit.kills === 1 ? '' : 'es'} ${raise}`;
  return `resource limit max_memory_bytes (${formatBytes(max)} per process: RLIMIT_AS, as no memory cgroup can be made here, so not across processes) reached: an allocation was refused (${JSON.stringify(hit.evidence)}) ${raise}`;
}

/** Disk use of a tree: allocated blocks and apparent (logical) sizes, each hard-linked file once. */
export interface DiskUsage {
  allocated: number;
  apparent: number;
}

/** Disk use as a bounded walk measured it: the entries it met, and the entry bound it stopped at, if any. */
export interface TreeUsage extends DiskUsage {
  entries: number;
  over: TreeBound | null;
}

/** The entry and depth bounds of a workspace walk. */
export function treeBounds(limits: SandboxLimits): TreeBounds {
  return { maxEntries: limits.workspace_max_files, maxDepth: limits.workspace_max_depth };
}

/** No entry or depth bound: only for callers that measure a tree they made themselves. */
const UNBOUNDED_TREE: TreeBounds = { maxEntries: Infinity, maxDepth: Infinity };

/**
 * Sums a tree's allocated and apparent bytes without following symlinks (a sparse file counts by
 * its apparent size, a link by its own size), walking it with walkTree: bounded memory, any depth.
 * Stops early once either sum passes `stopAbove`, or at the entry or depth bound (`over` says
 * which); files that vanish while it walks are skipped.
 */
export function diskUsage(roots: readonly string[], stopAbove = Infinity, bounds: TreeBounds = UNBOUNDED_TREE): TreeUsage {
  // Hard links are counted once: only files with more than one link are remembered, at most one per entry walked.
  const seen = new Set<string>();
  const total: TreeUsage = { allocated: 0, apparent: 0, entries: 0, over: null };
  const add = (st: Stats) => {
    if (st.nlink > 1 && !st.isDirectory()) {
      const key = `${st.dev}:${st.ino}`;
      if (seen.has(key)) return;
      seen.add(key);
    }
    total.allocated += st.blocks * 512;
    total.apparent += st.size;
  };
  for (const root of roots) {
    try {
      add(lstatSync(root));
    } catch {
      // gone: nothing to count
    }
  }
  const over = () => Math.max(total.allocated, total.apparent) > stopAbove;
  if (over()) return total;
  const walked = walkTree(roots, bounds, {
    entry: (e) => {
      add(e.stat);
      // Past the byte bound the walk has its answer.
      return over() ? 'stop' : true;
    },
  });
  return { ...total, entries: walked.entries, over: walked.over };
}

/** The larger of the two measures: what `workspace_max_bytes` bounds. */
export function diskUse(u: DiskUsage): number {
  return Math.max(u.allocated, u.apparent);
}

/**
 * `prlimit` arguments that start the command with the bounds: the largest file it may write; its
 * address space per process unless a memory cgroup bounds its total (`perProcessMemory` false);
 * and, where a user namespace counts them apart from the host's (`perNamespaceProcs`), its process count.
 */
export function prlimitArgs(prlimit: string, limits: SandboxLimits, perNamespaceProcs: boolean, perProcessMemory = true): string[] {
  return [
    prlimit,
    ...(perProcessMemory ? [`--as=${limits.max_memory_bytes}`] : []),
    `--fsize=${limits.workspace_max_bytes}`,
    ...(perNamespaceProcs ? [`--nproc=${limits.max_processes}`] : []),
    '--',
  ];
}

/**
 * Applies `key=value` overrides (the CLI's `--limit`) to the sandbox bounds; throws a RangeError
 * naming the pair, the known keys and the accepted range.
 */
export function withOverrides(base: SandboxLimits, pairs: readonly string[]): SandboxLimits {
  const out: SandboxLimits = { ...base };
  const keys = Object.keys(base) as (keyof SandboxLimits)[];
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    const key = pair.slice(0, eq) as keyof SandboxLimits;
    if (eq < 0 || !keys.includes(key)) throw new RangeError(`--limit ${JSON.stringify(pair)}: use KEY=VALUE with KEY one of ${keys.join(', ')}`);
    const value = Number(pair.slice(eq + 1));
    const check = validatorFor<ResourceLimitsFile>('resource-limits.schema.json');
    const candidate = { ...out, [key]: value };
    if (!Number.isFinite(value) || !check({ sandbox: candidate, run: defaultResourceLimits().run })) {
      throw new RangeError(`--limit ${JSON.stringify(pair)}: ${key} takes ${key === 'rep_max_seconds' ? 'a number of seconds > 0' : 'a whole number'} within schemas/resource-limits.schema.json's bounds`);
    }
    out[key] = value;
  }
  return out;
}
