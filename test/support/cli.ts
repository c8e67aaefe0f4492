import { main } from '../../harness/cli/main.ts';
import type { CliIO } from '../../harness/io/cli-io.ts';
import { REPO_ROOT } from './temp.ts';

export { REPO_ROOT, tempDir } from './temp.ts';

/** Result of one in-process CLI invocation. */
export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
  /** What the run wrote to its progress stream (stderr in a real process: `lines` mode here, as in a log). */
  progress: string;
}

/** Runs `bench ARGS` in-process with captured output, from `cwd` (default: the repo root). */
export async function bench(args: string[], opts: { cwd?: string; env?: Record<string, string | undefined> } = {}): Promise<CliRun> {
  const out: string[] = [];
  const err: string[] = [];
  const progress: string[] = [];
  const io: CliIO = {
    out: (s) => out.push(s),
    err: (s) => err.push(s),
    isTTY: false,
    progress: (s) => progress.push(s),
    env: opts.env ?? {},
    cwd: opts.cwd ?? REPO_ROOT,
  };
  const code = await main(args, io);
  return { code, stdout: out.join('\n'), stderr: err.join('\n'), progress: progress.join('') };
}
