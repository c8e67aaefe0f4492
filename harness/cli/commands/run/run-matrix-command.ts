// `bench run --workload <matrix>`: the matrix protocol on one recorded-outcome matrix; prints the
// report, writes its DB and JSON. `bench analyze --db-path` and `bench report` read them back
// (harness/matrix/read-matrix-report.ts).
import type { CliIO } from '../../../io/cli-io.ts';
import { modelNames } from '../../../matrix/read-matrix-report.ts';
import { renderMatrixText } from '../../../matrix/render-matrix.ts';
import type { MatrixRunOptions } from '../../../matrix/run-matrix.ts';
import { runMatrix } from '../../../protocols/matrix-run-protocol.ts';

/** Runs the protocol and prints the report; 0 when it ran (a router that does not beat the hull is a finding, not a failure). */
export async function runMatrixCommand(o: MatrixRunOptions, io: CliIO, width: number | null = null, quiet = false): Promise<number> {
  // One line per setting, and a meter of routing decisions in between (nothing with --quiet).
  const progress = (t: string) => (quiet ? undefined : io.progress(t.endsWith('\n') || t.startsWith('\r') ? t : `${t}\n`));
  const { report, dbPath, jsonPath } = await runMatrix(o, { cwd: io.cwd, env: io.env, progress, progressMode: quiet ? 'off' : io.isTTY ? 'tty' : 'lines', ...(io.interrupt ? { interrupt: io.interrupt } : {}) });
  io.out(renderMatrixText(report, { json: jsonPath, db: dbPath, width, names: modelNames(report) }));
  return 0;
}
