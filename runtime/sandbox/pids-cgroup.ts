import { accessSync, constants, existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A cgroup of its own for one command, bounding its process count with the pids controller.
 * Only a root harness needs it: RLIMIT_NPROC never binds a process whose uid maps to host root
 * (the kernel exempts INIT_USER), which is what both tiers run as under a root harness.
 */
export interface PidsCgroup {
  /** The file whose write moves a process (and its later children) into the cgroup. */
  procsFile: string;
  /** True when a fork was refused because the cgroup was full (pids.events `max` > 0). */
  hit(): boolean;
  /** Removes the cgroup (its processes must be gone); errors are ignored. */
  remove(): void;
}

const CGROUP_ROOT = '/sys/fs/cgroup';
let counter = 0;

/** The directory under which a pids cgroup can be made here, or null (v1 pids hierarchy, or v2 from the root cgroup). */
export function pidsCgroupParent(root = CGROUP_ROOT, selfCgroup = () => readFileSync('/proc/self/cgroup', 'utf8')): string | null {
  const writable = (p: string) => {
    try {
      accessSync(p, constants.W_OK);
      return true;
    } catch {
      return false;
    }
  };
  const v1 = join(root, 'pids');
  if (existsSync(join(v1, 'cgroup.procs')) && writable(v1)) return v1;
  const controllers = join(root, 'cgroup.controllers');
  if (!existsSync(controllers) || !writable(root)) return null;
  // v2: only from the root cgroup can controllers be handed to a child without moving the harness.
  if (!/^0::\/$/m.test(selfCgroup())) return null;
  if (!readFileSync(controllers, 'utf8').split(/\s+/).includes('pids')) return null;
  try {
    if (!readFileSync(join(root, 'cgroup.subtree_control'), 'utf8').split(/\s+/).includes('pids')) writeFileSync(join(root, 'cgroup.subtree_control'), '+pids');
  } catch {
    return null;
  }
  return root;
}

/** A fresh pids cgroup allowing `max` processes under `parent`, or null when it cannot be made. */
export function createPidsCgroup(parent: string, max: number): PidsCgroup | null {
  const dir = join(parent, `metis-${process.pid}-${++counter}`);
  try {
    mkdirSync(dir);
    writeFileSync(join(dir, 'pids.max'), String(max));
  } catch {
    try {
      rmdirSync(dir);
    } catch {
      // never made
    }
    return null;
  }
  return {
    procsFile: join(dir, 'cgroup.procs'),
    hit: () => {
      try {
        return /^max\s+[1-9]/m.test(readFileSync(join(dir, 'pids.events'), 'utf8'));
      } catch {
        return false;
      }
    },
    remove: () => {
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
    },
  };
}
