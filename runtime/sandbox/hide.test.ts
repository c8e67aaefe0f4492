import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createMemoryLogger } from '../core/logger.ts';
import { probeBwrap, runCommand } from './index.ts';

const hasBwrap = (await probeBwrap(process.env.PATH)) !== null;
// Outside /tmp on purpose: bwrap's private /tmp would hide a secret under /tmp anyway.
const outside = mkdtempSync('/var/tmp/metis-hide-');
afterAll(() => rmSync(outside, { recursive: true, force: true }));

describe.skipIf(!hasBwrap)('hidden paths under bwrap (skipped: bwrap not installed)', () => {
  it('a hidden directory reads as empty from the sandbox, and is readable without `hide`', async () => {
    const secretDir = join(outside, 'workloads', 'x', 'check');
    mkdirSync(secretDir, { recursive: true });
    writeFileSync(join(secretDir, 'secret.txt'), 'SECRET_MARKER');
    const ws = mkdtempSync(join(tmpdir(), 'metis-hide-ws-'));
    const base = { cwd: ws, timeoutMs: 10_000, logger: createMemoryLogger(), hostPath: process.env.PATH, sandbox: 'bwrap' as const };
    const visible = await runCommand(`cat ${join(secretDir, 'secret.txt')}`, base);
    expect(visible.output).toContain('SECRET_MARKER');
    const hidden = await runCommand(`cat ${join(secretDir, 'secret.txt')}; ls -A ${join(outside, 'workloads')} | wc -l`, { ...base, hide: [join(outside, 'workloads')] });
    expect(hidden.output).not.toContain('SECRET_MARKER');
    expect(hidden.output.trim().split('\n').at(-1)).toBe('0');
    rmSync(ws, { recursive: true, force: true });
  });
});
