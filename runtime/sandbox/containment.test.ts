import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createMemoryLogger } from '../core/logger.ts';
import { runCheckDetailed } from '../evaluator/check.ts';
import { createWorkspaceFixture } from '../tools/test-support/workspace-fixture.ts';
import { confiningTiers, CONTAINMENT_PROBE, probeContainment } from './test-support/containment-probe.ts';
import { otherUserSkipReason, TSX_CLI, unprivilegedUser } from './test-support/other-user.ts';

// Issue 22: as root, run_shell rewrote the host's kernel settings under both tiers and kept every
// capability. Each tier that claims to contain must leave /proc's knobs read-only and no capability.
const hostPath = process.env.PATH ?? '';
const tiers = await confiningTiers(hostPath);
const isRoot = process.getuid?.() === 0;
if (tiers.length === 0) console.warn('[containment.test] neither bubblewrap nor util-linux unshare can create namespaces here: no confining tier to test');

/** The contained verdict on a probe's output: nothing written, no writable knob, CapEff empty. */
function expectContained(out: string): void {
  expect(out).not.toContain('WROTE');
  expect(out).toMatch(/^writable knobs: 0$/m);
  expect(out).toMatch(/^CapEff:\s+0000000000000000$/m);
}


describe.each(tiers)('containment of run_shell and checks (sandbox=%s)', { timeout: 120_000 }, (tier) => {
  it(`as ${isRoot ? 'root' : 'this user'}: no /proc/sys file can be written (even with its current value) and the effective capability set is empty`, async () => {
    expectContained(await probeContainment(tier, hostPath));
  });

  it('a hidden check gets no capability and cannot write a kernel setting either', async () => {
    const fx = createWorkspaceFixture({ 'a.txt': 'a\n' });
    try {
      const run = await runCheckDetailed({ command: CONTAINMENT_PROBE, timeoutSeconds: 60, workspaceRoot: fx.ws, logger: createMemoryLogger(), hostPath, sandbox: tier });
      expect(run.result.sandbox).toBe(tier);
      expectContained(run.result.output_tail);
    } finally {
      fx.cleanup();
    }
  });
});

const probeScript = fileURLToPath(new URL('./test-support/containment-probe.ts', import.meta.url));

describe('containment as a normal user', { timeout: 180_000 }, () => {
  const user = unprivilegedUser();
  const reason = otherUserSkipReason([probeScript]);
  if (reason) console.warn(`[containment.test] normal-user variant skipped: ${reason}`);
  it.skipIf(reason !== null)('every tier that works for a normal user contains it too', () => {
    const r = spawnSync(process.execPath, [TSX_CLI, probeScript], { uid: user!.uid, gid: user!.gid, cwd: '/', env: { PATH: hostPath, HOME: '/' }, encoding: 'utf8', timeout: 150_000 });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const got = JSON.parse(r.stdout) as { uid: number; results: Record<string, string> };
    expect(got.uid).toBe(user!.uid);
    const missing = tiers.filter((t) => !(t in got.results));
    if (missing.length > 0) console.warn(`[containment.test] as uid ${user!.uid}, these tiers do not work and were not probed: ${missing.join(', ')}`);
    expect(Object.keys(got.results).length).toBeGreaterThan(0);
    for (const out of Object.values(got.results)) expectContained(out);
  });
});
