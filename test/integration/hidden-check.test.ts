import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { probeBwrap } from '../../runtime/sandbox/index.ts';
import type { BenchReport } from '../../schemas/types/report.ts';
import { bench, tempDir } from '../support/cli.ts';

const hasBwrap = (await probeBwrap(process.env.PATH)) !== null;

/** A one-turn workload whose agent tries every way to look at the hidden check files. */
function peekingWorkload(): { dir: string; secretFile: string } {
  const dir = join(tempDir(), 'workloads');
  const w = join(dir, 'peek');
  mkdirSync(join(w, 'workspace'), { recursive: true });
  mkdirSync(join(w, 'check'), { recursive: true });
  writeFileSync(join(w, 'workspace', 'app.txt'), 'hello\n');
  const secretFile = join(w, 'check', 'test_secret.txt');
  writeFileSync(secretFile, 'SECRET_MARKER\n');
  // The check passes only if the secret is present now (mounted after the turns) and was not seen during them.
  writeFileSync(
    join(w, 'workload.yaml'),
    `name: peek
description: the agent tries to read the hidden check files
suite_version: 1
signal_strength: marginal
turns:
  - prompt: "look around"
evaluate:
  check:
    command: "grep -q SECRET_MARKER .bench-check/test_secret.txt && ! grep -q SECRET_MARKER seen.txt && ! grep -q test_secret listing.txt"
    timeout_seconds: 20
`,
  );
  const peek = [
    'ls -aR . > listing.txt',
    'ls -a .bench-check >> listing.txt 2>/dev/null',
    'ls -a ../check >> listing.txt 2>/dev/null',
    'cat .bench-check/* ../check/* > seen.txt 2>&1',
    ...(hasBwrap ? [`cat ${secretFile} >> seen.txt 2>&1`, `ls ${join(w, 'check')} >> listing.txt 2>/dev/null`] : []),
    'true',
  ].join('; ');
  const plan = (id: string, competent: boolean) => `      - id: ${id}
        competent: ${competent}
        steps:
          - tool_calls:
              - tool: run_shell
                input: { command: ${JSON.stringify(peek)} }
              - tool: read_file
                input: { path: ../check/test_secret.txt }
              - tool: read_file
                input: { path: .bench-check/test_secret.txt }
        final: "Looked."
`;
  writeFileSync(join(w, 'sim.yaml'), `version: 1\nturns:\n  - difficulty: 0.1\n    plans:\n${plan('look', true)}${plan('look-again', false)}`);
  return { dir, secretFile };
}

describe('hidden check files (spec §5)', () => {
  it(`the agent cannot see check/ during the turns; the check sees it afterwards${hasBwrap ? '' : ' (bwrap missing: absolute-path reads are not tested)'}`, async () => {
    const { dir } = peekingWorkload();
    const db = join(tempDir(), 'peek.db');
    const r = await bench(['run', '--workloads-dir', dir, '--workload', 'peek', '--db-path', db], { env: { PATH: process.env.PATH } });
    expect(r.code, r.stderr).not.toBe(2);
    const rep = (JSON.parse(readFileSync(db.replace(/\.db$/, '.json'), 'utf8')) as BenchReport).workloads[0]!.reps[0]!;
    expect(rep.check?.passed, rep.check?.output_tail).toBe(true);
    // Both read_file attempts failed: one leaves the workspace, the other does not exist yet.
    expect(rep.failed_tool_calls).toBe(2);
  });
});
