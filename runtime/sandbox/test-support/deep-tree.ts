import { closeSync, constants, mkdirSync, openSync, writeFileSync } from 'node:fs';

/** A directory reached through an open descriptor: `/proc/self/fd/N` names it in a few bytes however deep it is. */
const viaFd = (fd: number, name: string) => `/proc/self/fd/${fd}/${name}`;

/**
 * Builds `depth` nested directories of `nameLength`-character names under `root`, a file in the
 * deepest, and returns the full path's length: far past PATH_MAX, as a `run_shell` step can make
 * one with `mkdir x && cd x` in a loop. One descriptor open at a time, so any depth works.
 */
export function makeDeepTree(root: string, depth: number, nameLength = 200): number {
  const name = 'd'.repeat(nameLength);
  let fd = openSync(root, constants.O_RDONLY | constants.O_DIRECTORY);
  try {
    for (let i = 0; i < depth; i++) {
      mkdirSync(viaFd(fd, name));
      const next = openSync(viaFd(fd, name), constants.O_RDONLY | constants.O_DIRECTORY);
      closeSync(fd);
      fd = next;
    }
    writeFileSync(viaFd(fd, 'leaf.txt'), 'bottom\n');
  } finally {
    closeSync(fd);
  }
  return root.length + depth * (nameLength + 1);
}
