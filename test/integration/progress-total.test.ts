// The progress count of an A3 run includes Pass R: it never reads [n/n] before the random arm has run.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../harness/cli/main.ts';
import { REPO_ROOT, tempDir } from '../support/cli.ts';

describe('progress on stderr', () => {
  it('an A3 run counts Pass R in its total: the last line is Pass R at [total/total]', { timeout: 300_000 }, async () => {
    const lines: string[] = [];
    const code = await main(['run', '--protocol', 'a3', '--workload', 'fix-a-bug-small', '--seed-passes', '2', '--db-path', join(tempDir(), 'a3.db')], {
      out: () => {},
      err: () => {},
      isTTY: false,
      progress: (s) => lines.push(s),
      env: { PATH: process.env.PATH },
      cwd: REPO_ROOT,
    });
    expect(code).not.toBe(2);
    const counts = lines.map((l) => /^\[(\d+)\/(\d+)\] pass (\S+)/.exec(l)).filter((m) => m !== null);
    const total = Number(counts[0]![2]);
    // A, B and C with 2 reps of one workload, then Pass R's 2 reps: 8.
    expect(total).toBe(8);
    expect(counts.every((m) => Number(m[2]) === total)).toBe(true);
    const last = counts.at(-1)!;
    expect([last[1], last[3]]).toEqual([String(total), 'R']);
    expect(counts.filter((m) => Number(m[1]) === total)).toHaveLength(1);
  });
});
