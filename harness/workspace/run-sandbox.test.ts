import { describe, expect, it } from 'vitest';
import { probeBwrap } from '../../runtime/sandbox/index.ts';
import { SetupError } from '../errors.ts';
import { decideRunSandbox, REFUSED_UNSANDBOXED } from './run-sandbox.ts';

const hasBwrap = (await probeBwrap(process.env.PATH)) !== null;
const NO_BWRAP = {};
// A machine without bubblewrap.
const none = () => Promise.resolve(null);

describe('decideRunSandbox', () => {
  it('without bwrap: a real provider is refused commands unless --unsandboxed; a sim run goes on with a warning', async () => {
    expect(await decideRunSandbox({ env: NO_BWRAP, realProvider: true, unsandboxed: false, probe: none })).toEqual({ mode: 'bwrap', warning: REFUSED_UNSANDBOXED });
    expect(REFUSED_UNSANDBOXED).toContain('--unsandboxed');
    const opted = await decideRunSandbox({ env: NO_BWRAP, realProvider: true, unsandboxed: true, probe: none });
    expect(opted.mode).toBe('none');
    expect(opted.warning).toMatch(/--unsandboxed given/);
    const sim = await decideRunSandbox({ env: NO_BWRAP, realProvider: false, unsandboxed: false, probe: none });
    expect(sim.mode).toBe('none');
    expect(sim.warning).toMatch(/simulated run/);
    expect((await decideRunSandbox({ env: { METIS_SANDBOX: 'bwrap' }, realProvider: false, unsandboxed: true, probe: none })).mode).toBe('bwrap');
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
