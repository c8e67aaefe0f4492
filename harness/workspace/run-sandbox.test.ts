import { describe, expect, it } from 'vitest';
import { probeBwrap, probeUnshare, ROOT_UNCONFINED_REFUSAL } from '../../runtime/sandbox/index.ts';
import { SetupError } from '../errors.ts';
import { decideRunSandbox, REFUSED_UNSANDBOXED, unshareRunWarning } from './run-sandbox.ts';

const hasBwrap = (await probeBwrap(process.env.PATH)) !== null;
const hasUnshare = (await probeUnshare(process.env.PATH)) !== null;
const NO_BWRAP = {};
// A machine without bubblewrap (probe) or a working unshare (probeUnshare).
const none = () => Promise.resolve(null);
const found = () => Promise.resolve('/usr/bin/found');

describe('decideRunSandbox', () => {
  it('with neither bwrap nor unshare: a real provider is refused commands unless --unsandboxed; a sim run goes on with a warning', async () => {
    expect(await decideRunSandbox({ env: NO_BWRAP, realProvider: true, unsandboxed: false, probe: none, probeUnshare: none })).toEqual({ mode: 'bwrap', warning: REFUSED_UNSANDBOXED });
    expect(REFUSED_UNSANDBOXED).toContain('--unsandboxed');
    const opted = await decideRunSandbox({ env: NO_BWRAP, realProvider: true, unsandboxed: true, probe: none, probeUnshare: none });
    expect(opted.mode).toBe('none');
    expect(opted.warning).toMatch(/--unsandboxed given/);
    const sim = await decideRunSandbox({ env: NO_BWRAP, realProvider: false, unsandboxed: false, probe: none, probeUnshare: none, asRoot: false });
    expect(sim.mode).toBe('none');
    expect(sim.warning).toMatch(/simulated run/);
    expect((await decideRunSandbox({ env: { METIS_SANDBOX: 'bwrap' }, realProvider: false, unsandboxed: true, probe: none, probeUnshare: none })).mode).toBe('bwrap');
  });

  it('as root with neither tier, a simulated run is refused commands too (unconfined root could write the host kernel settings), naming the fix', async () => {
    const sim = await decideRunSandbox({ env: NO_BWRAP, realProvider: false, unsandboxed: false, probe: none, probeUnshare: none, asRoot: true });
    expect(sim).toEqual({ mode: 'auto', warning: ROOT_UNCONFINED_REFUSAL });
    expect(ROOT_UNCONFINED_REFUSAL).toMatch(/install bubblewrap/);
    expect((await decideRunSandbox({ env: NO_BWRAP, realProvider: false, unsandboxed: true, probe: none, probeUnshare: none, asRoot: true })).mode).toBe('none');
  });

  it('without bwrap but with unshare: the unshare tier for any provider, with a warning saying so; METIS_SANDBOX=unshare demands it', async () => {
    const rootEntries = () => ['/usr', '/bin', '/lib64', '/proc', '/etc', '/home', '/root', '/tmp', '/run', '/dev', '/opt', '/srv', '/work', '/container_info.json'];
    for (const realProvider of [true, false]) {
      const d = await decideRunSandbox({ env: NO_BWRAP, realProvider, unsandboxed: false, probe: none, probeUnshare: found, rootEntries });
      expect(d.mode).toBe('unshare');
      // Before: 'the rest of the root stays readable', naming nothing (other checkouts' check/ folders under /work were).
      expect(d.warning).toMatch(/^sandboxed with unshare \(no bubblewrap\).*; still readable, read-only: \/container_info\.json, \/opt, \/srv, \/work \(install bubblewrap/);
      expect(d.warning).not.toContain('\n');
    }
    expect(unshareRunWarning([])).toContain('still readable, read-only: nothing beyond the system directories');
    // bwrap is preferred when both work.
    expect(await decideRunSandbox({ env: NO_BWRAP, realProvider: true, unsandboxed: false, probe: found, probeUnshare: found })).toEqual({ mode: 'auto', warning: null });
    // Forced: taken even where bwrap works; refused (mode kept, so commands throw) where unshare does not.
    expect((await decideRunSandbox({ env: { METIS_SANDBOX: 'unshare' }, realProvider: true, unsandboxed: false, probe: found, probeUnshare: found })).mode).toBe('unshare');
    const missing = await decideRunSandbox({ env: { METIS_SANDBOX: 'unshare' }, realProvider: false, unsandboxed: true, probe: found, probeUnshare: none });
    expect(missing.mode).toBe('unshare');
    expect(missing.warning).toMatch(/METIS_SANDBOX=unshare: .*refused/);
  });

  it.skipIf(!hasUnshare || hasBwrap)('on this machine without bwrap, the real unshare probe is used', async () => {
    expect((await decideRunSandbox({ env: { PATH: process.env.PATH }, realProvider: true, unsandboxed: false })).mode).toBe('unshare');
  });

  it.skipIf(!hasBwrap)('with bwrap: auto, and no warning, for any provider', async () => {
    const env = { PATH: process.env.PATH };
    expect(await decideRunSandbox({ env, realProvider: true, unsandboxed: false })).toEqual({ mode: 'auto', warning: null });
    expect(await decideRunSandbox({ env, realProvider: false, unsandboxed: false })).toEqual({ mode: 'auto', warning: null });
  });

  it('METIS_SANDBOX=none forces the no-bwrap path with a warning; a bad value is a setup error naming the variable', async () => {
    const none = await decideRunSandbox({ env: { PATH: process.env.PATH, METIS_SANDBOX: 'none' }, realProvider: true, unsandboxed: false });
    expect(none.mode).toBe('none');
    expect(none.warning).toMatch(/METIS_SANDBOX=none/);
    await expect(decideRunSandbox({ env: { METIS_SANDBOX: 'off' }, realProvider: false, unsandboxed: false })).rejects.toThrow(SetupError);
    await expect(decideRunSandbox({ env: { METIS_SANDBOX: 'off' }, realProvider: false, unsandboxed: false })).rejects.toThrow(/METIS_SANDBOX="off"/);
  });
});
