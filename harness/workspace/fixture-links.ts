import { lstatSync, readdirSync, readlinkSync, realpathSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { isWithin } from '../../runtime/sandbox/index.ts';
import { SetupError } from '../errors.ts';

/**
 * Refuses a fixture that reaches outside itself, so a run can neither read nor write the real
 * thing through its copy: `workspace/` must be a real directory, not a symlink, and every symlink
 * inside must be relative and resolve inside it (a link into `../check/` would hand the agent the
 * hidden check; an absolute one, copied verbatim, would point back at the real files).
 * Throws a SetupError (exit 2) naming the offending path and the fix.
 */
export function assertSelfContainedFixture(fixtureDir: string): void {
  const st = lstatSync(fixtureDir, { throwIfNoEntry: false });
  if (!st) throw new SetupError(`${fixtureDir}: the workload's workspace/ does not exist`);
  if (st.isSymbolicLink()) {
    throw new SetupError(`${fixtureDir}: workspace/ is a symlink (to ${readlinkSync(fixtureDir)}); a run would copy the link and change the real fixture. Make it a real directory (cp -rL)`);
  }
  if (!st.isDirectory()) throw new SetupError(`${fixtureDir}: workspace/ is not a directory`);
  const root = realpathSync(fixtureDir);
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isSymbolicLink()) {
        const target = readlinkSync(p);
        // The copy keeps links verbatim, so an absolute one would still point at the real fixture.
        if (isAbsolute(target)) throw new SetupError(`${p}: a symlink in the fixture is absolute (to ${target}); its copy would point back at the real files. Use a relative link inside workspace/`);
        let real: string | null;
        try {
          real = realpathSync(p);
        } catch {
          real = null; // dangling: judge by where it points
        }
        if (!isWithin(root, real ?? resolve(dirname(p), target))) {
          throw new SetupError(`${p}: a symlink in the fixture points outside workspace/ (to ${target}); replace it with a copy of the file or a link that stays inside`);
        }
      } else if (e.isDirectory()) walk(p);
    }
  };
  walk(fixtureDir);
}
