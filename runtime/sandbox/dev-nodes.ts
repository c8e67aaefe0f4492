/**
 * The device nodes a sandboxed command gets in its /dev (the set bwrap's `--dev` offers). They are
 * the host's own nodes, bound in, and uid 0 owns them: a command running as root could chmod or
 * chown them for the whole host (a `chmod 640 /dev/null` breaks every other user's shell), whatever
 * its capabilities, since the owner needs none. Both tiers therefore bind them read-only, which
 * refuses a change of mode or owner (EROFS) while reads and writes of the device still work.
 */
export const DEV_NODES = ['null', 'zero', 'full', 'random', 'urandom', 'tty'] as const;

/**
 * Shell lines that bind each existing node of DEV_NODES read-only over itself, with util-linux
 * `mount` (whose bind remount keeps device access; bwrap's `--remount-ro` would add nodev, and the
 * nodes would stop working). Run in a private mount namespace, so the host's /dev is untouched.
 * A node that cannot be protected ends the script with status 125 and a line saying which.
 */
export function readOnlyDevNodesScript(mount: string): string {
  const nodes = DEV_NODES.join(' ');
  return [
    `for n in ${nodes}; do`,
    '  [ -e "/dev/$n" ] || continue',
    `  { ${mount} -n --bind "/dev/$n" "/dev/$n" && ${mount} -n -o remount,bind,ro "/dev/$n"; } || { echo "metis-sandbox: cannot bind /dev/$n read-only; refusing to run the command as root with a writable host device node" >&2; exit 125; }`,
    'done',
  ].join('\n');
}
