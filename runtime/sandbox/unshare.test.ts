import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findOnPath } from './bwrap.ts';
import { isWithin } from './workspace-path.ts';
import { planHidden, probeUnshare, unshareArgs } from './unshare.ts';
import { shellQuote } from './shell-quote.ts';

const hostPath = process.env.PATH ?? '';
const tools = await probeUnshare(hostPath);
const setpriv = findOnPath('setpriv', hostPath);
const isRoot = process.getuid?.() === 0;
if (!tools) console.warn('[unshare.test] util-linux unshare cannot create namespaces here: the namespace cases are skipped');

// Absolute paths over a small alphabet, so that nesting and equality happen often.
const segment = fc.constantFrom('a', 'b', 'tmp', 'home', 'ws');
const absPath = fc.array(segment, { minLength: 0, maxLength: 4 }).map((s) => `/${s.join('/')}`);

describe('planHidden', () => {
  it('never hides a kept writable path or /, never lists a directory inside another, and covers every usable candidate', () => {
    fc.assert(
      fc.property(fc.array(absPath, { maxLength: 8 }), fc.array(absPath, { minLength: 1, maxLength: 3 }), absPath, (candidates, kept, stage) => {
        const plan = planHidden(candidates, kept, stage);
        for (const h of plan) {
          expect(h).not.toBe('/');
          expect(kept.some((k) => isWithin(k, h))).toBe(false);
          expect(plan.filter((o) => o !== h && isWithin(o, h))).toEqual([]);
        }
        expect(new Set(plan).size).toBe(plan.length);
        // Every candidate that may be hidden is hidden, by itself or by an ancestor in the plan.
        for (const c of candidates) {
          if (c === '/' || kept.some((k) => isWithin(k, c))) continue;
          expect(plan.some((h) => isWithin(h, c))).toBe(true);
        }
      }),
    );
  });

  it('puts the directory that holds the staging point last, since covering it removes the stage', () => {
    fc.assert(
      fc.property(fc.array(absPath, { maxLength: 8 }), absPath, (candidates, stage) => {
        const plan = planHidden(candidates, ['/ws/keep'], stage);
        const holding = plan.findIndex((h) => isWithin(h, stage));
        if (holding !== -1) expect(holding).toBe(plan.length - 1);
      }),
    );
    expect(planHidden(['/tmp', '/root', '/etc', '/tmp/x', '/home/u/ws'], ['/home/u/ws'], '/tmp/s/stage')).toEqual(['/etc', '/root', '/tmp']);
  });
});

describe('shellQuote', () => {
  it('passes any string through /bin/sh as one word, unchanged', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }).filter((s) => !s.includes('\0')), (s) => {
        expect(execFileSync('/bin/sh', ['-c', `printf %s ${shellQuote(s)}`], { encoding: 'utf8' })).toBe(s);
      }),
      { numRuns: 60 },
    );
  });
});

describe('unshare tier as a user that is not root', { timeout: 120_000 }, () => {
  // Running the harness itself as another user is not possible here; drop to nobody with setpriv instead.
  it.skipIf(!tools || !isRoot || !setpriv)('covers /root and /tmp but the workspace, and its mounts cannot be undone', () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'metis-unshare-nobody-')));
    const ws = join(dir, 'ws');
    const stage = join(dir, 'stage');
    mkdirSync(ws);
    mkdirSync(stage);
    writeFileSync(join(dir, 'sibling.txt'), 'SIBLING_MARKER\n');
    for (const p of [dir, ws, stage, join(dir, 'sibling.txt')]) chmodSync(p, 0o777);
    try {
      const args = unshareArgs({ workspace: ws, stage }, tools!, ['/bin/sh', '-c', 'echo made > f && cat f; umount -l /tmp 2>/dev/null; cat ../sibling.txt 2>&1; stat -f -c %T /root /tmp'], false);
      const r = spawnSync(setpriv!, ['--reuid=65534', '--regid=65534', '--clear-groups', '--', tools!.unshare, ...args], { cwd: ws, env: { PATH: '/usr/sbin:/usr/bin:/sbin:/bin' }, encoding: 'utf8' });
      if (r.status !== 0 && /Operation not permitted|user namespace/i.test(r.stderr)) {
        console.warn(`[unshare.test] user namespaces are not allowed for non-root users here: ${r.stderr.trim()}`);
        return;
      }
      expect(r.stderr).toBe('');
      expect(r.status).toBe(0);
      const lines = r.stdout.trim().split('\n');
      expect(lines[0]).toBe('made');
      expect(r.stdout).not.toContain('SIBLING_MARKER');
      expect(lines.slice(-2)).toEqual(['tmpfs', 'tmpfs']); // still covered after the umount attempt
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
