import { accessSync, constants, existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Cgroups of its own for one command: the pids controller bounds its process count, the memory
 * controller the memory of all its processes together. Only a root harness can make them. The pids
 * one is needed there because RLIMIT_NPROC never binds a process whose uid maps to host root (the
 * kernel exempts INIT_USER), which is what both tiers run as under a root harness.
 */
export interface CommandCgroups {
  /** The files whose write moves a process (and its later children) into the cgroups. */
  procsFiles: string[];
  /** The controllers that bound this command. */
  bounds: Controller[];
  /** True when a fork was refused because the pids cgroup was full (pids.events `max` > 0). */
  pidsHit(): boolean;
  /** Processes the kernel killed because the memory cgroup reached its limit (`oom_kill` of memory.events, or memory.oom_control in v1). */
  oomKills(): number;
  /** Removes the cgroups (their processes must be gone); errors are ignored. */
  remove(): void;
}

/** The controllers a command's cgroups bound. */
export type Controller = 'pids' | 'memory';

const CGROUP_ROOT = '/sys/fs/cgroup';
let counter = 0;

const writable = (p: string) => {
  try {
    accessSync(p, constants.W_OK);
    return true;
  } catch {
    return false;
  }
};

/**
 * The directory under which a `controller` cgroup can be made here, or null: in a v1 hierarchy,
 * this process's own cgroup of that controller (so a limit set above it still applies); in v2,
 * only from the root cgroup, the one place controllers can be handed to a child without moving
 * the harness.
 */
export function cgroupParent(controller: Controller, root = CGROUP_ROOT, selfCgroup = () => readFileSync('/proc/self/cgroup', 'utf8')): string | null {
  const self = selfCgroup();
  const v1 = join(root, controller);
  if (existsSync(join(v1, 'cgroup.procs'))) {
    const own = new RegExp(`^\\d+:(?:[^:]*,)?${controller}(?:,[^:]*)?:(.*)$`, 'm').exec(self)?.[1] ?? '/';
    const dir = own === '/' ? v1 : join(v1, own);
    return existsSync(join(dir, 'cgroup.procs')) && writable(dir) ? dir : null;
  }
  const controllers = join(root, 'cgroup.controllers');
  if (!existsSync(controllers) || !writable(root)) return null;
  if (!/^0::\/$/m.test(self)) return null;
  if (!readFileSync(controllers, 'utf8').split(/\s+/).includes(controller)) return null;
  try {
    if (!readFileSync(join(root, 'cgroup.subtree_control'), 'utf8').split(/\s+/).includes(controller)) writeFileSync(join(root, 'cgroup.subtree_control'), `+${controller}`);
  } catch {
    return null;
  }
  return root;
}

/** Makes `dir` and writes `settings` (file, value) into it, the required first; null (and nothing left) when any required one fails. */
function makeCgroup(dir: string, settings: readonly [string, string, 'required' | 'optional'][]): string | null {
  try {
    mkdirSync(dir);
    for (const [file, value, need] of settings) {
      try {
        writeFileSync(join(dir, file), value);
      } catch (e) {
        if (need === 'required') throw e;
      }
    }
    return dir;
  } catch {
    try {
      rmdirSync(dir);
    } catch {
      // never made
    }
    return null;
  }
}

function remover(dir: string): () => void {
  return () => {
    try {
      rmdirSync(dir);
    } catch {
      // a process lingers a moment after the pid namespace died: try once more later
      setTimeout(() => {
        try {
          rmdirSync(dir);
        } catch {
          // left for the OS; empty cgroups cost nothing
        }
      }, 1000).unref();
    }
  };
}

const readOr = (file: string, fallback: string) => {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return fallback;
  }
};

/** What to bound: a process count, a memory size, or both. */
export interface CgroupBounds {
  maxProcesses?: number;
  maxMemoryBytes?: number;
}

/**
 * Fresh cgroups for one command under the given parents (see cgroupParent): in v1 one per
 * controller, in v2 one holding both (a process is in one v2 cgroup only). Memory excludes swap
 * where the kernel accounts it. Null when none of the wanted bounds could be set.
 */
export function createCommandCgroups(want: CgroupBounds, parents: Readonly<Partial<Record<Controller, string | null>>>): CommandCgroups | null {
  const made: { controller: Controller; dir: string; v2: boolean }[] = [];
  const tag = `metis-${process.pid}-${++counter}`;
  const settingsOf = (controller: Controller, v2: boolean): [string, string, 'required' | 'optional'][] => {
    if (controller === 'pids') return [['pids.max', String(want.maxProcesses), 'required']];
    const bytes = String(want.maxMemoryBytes);
    return v2 ? [['memory.max', bytes, 'required'], ['memory.swap.max', '0', 'optional']] : [['memory.limit_in_bytes', bytes, 'required'], ['memory.memsw.limit_in_bytes', bytes, 'optional']];
  };
  const wanted = (['pids', 'memory'] as const).filter((c) => (c === 'pids' ? want.maxProcesses : want.maxMemoryBytes) !== undefined && parents[c]);
  for (const controller of wanted) {
    const parent = parents[controller]!;
    const v2 = existsSync(join(parent, 'cgroup.controllers'));
    const shared = v2 ? made.find((m) => m.v2 && m.dir === join(parent, tag)) : undefined;
    if (shared) {
      // The v2 cgroup exists already (made for the other controller): set this one's files in it.
      try {
        for (const [file, value, need] of settingsOf(controller, true)) {
          try {
            writeFileSync(join(shared.dir, file), value);
          } catch (e) {
            if (need === 'required') throw e;
          }
        }
        made.push({ controller, dir: shared.dir, v2 });
      } catch {
        // this controller is not bounded; the other still is
      }
      continue;
    }
    const dir = makeCgroup(join(parent, tag), settingsOf(controller, v2));
    if (dir) made.push({ controller, dir, v2 });
  }
  if (made.length === 0) return null;
  const dirOf = (c: Controller) => made.find((m) => m.controller === c);
  const pids = dirOf('pids');
  const memory = dirOf('memory');
  return {
    procsFiles: [...new Set(made.map((m) => join(m.dir, 'cgroup.procs')))],
    bounds: made.map((m) => m.controller),
    pidsHit: () => pids !== undefined && /^max\s+[1-9]/m.test(readOr(join(pids.dir, 'pids.events'), '')),
    oomKills: () => (memory ? Number(/^oom_kill\s+(\d+)/m.exec(readOr(join(memory.dir, memory.v2 ? 'memory.events' : 'memory.oom_control'), ''))?.[1] ?? 0) : 0),
    remove: () => [...new Set(made.map((m) => m.dir))].forEach((d) => remover(d)()),
  };
}
