import { existsSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { loadSimScript } from '../../../runtime/providers/sim/index.ts';
import { DataFileError } from '../../../runtime/core/yaml-document.ts';
import { isQueryStreamDir, loadQueryStream, STREAM_FILE } from '../../cache-bench/load-stream.ts';
import { queryStreamDirs } from '../../cache-bench/stream-catalog.ts';
import { EXIT, SetupError } from '../../errors.ts';
import { loadGenericCheats, loadWorkloadRedTeam, WORKLOAD_CHEATS_FILE } from '../../redteam/cheat-data.ts';
import { redTeamViolations, runRedTeam } from '../../redteam/red-team.ts';
import { renderRedTeamTable } from '../../redteam/render-red-team.ts';
import { loadOutcomeMatrix } from '../../matrix/outcome-matrix.ts';
import { loadWorkload, matrixWorkloadDirs, workloadDirs } from '../../workloads/load-workload.ts';
import { workloadKind } from '../../workloads/workload-kind.ts';
import type { Workload } from '../../workloads/workload.ts';
import { assertSelfContainedFixture } from '../../workspace/fixture-links.ts';
import { decideRunSandbox } from '../../workspace/run-sandbox.ts';
import type { CommandSpec } from '../command.ts';

const DEEP_HELP = `
--deep runs each valid workload's hidden check on fresh copies of its fixture: after the competent
sim plan (must pass; a workload's cheats.yaml may say competent_plan: fails for an evaluator
control), after doing nothing (must fail), and after every scripted cheat (must fail): the generic
ones in harness/data/cheats/*.yaml and the workload's own in <workload>/${WORKLOAD_CHEATS_FILE}
(schema: schemas/cheat-set.schema.json). It prints a workload × variant table and exits 2 on any
violation. Commands run in the sandbox (METIS_SANDBOX=auto|bwrap|none; default auto).`;

/**
 * `bench validate [PATHS]`: check workload directories (or workload.yaml files) and their sim scripts, and
 * query streams (stream.yaml against its schema, classes, document refs); `--deep` adds the red-team QA.
 */
export const validateCommandSpec: CommandSpec = {
  configure(cmd) {
    cmd
      .argument('[paths...]', 'workload or query-stream directories, workload.yaml or stream.yaml files (default: every workload and stream under --workloads-dir)')
      .option('--workloads-dir <dir>', 'where workloads live', './workloads')
      .option('--deep', 'also run the competent plan, a do-nothing run and every scripted cheat against each hidden check (slow: a check run each)', false)
      .addHelpText('after', DEEP_HELP);
  },
  async run(cmd, args, io) {
    const paths = (args[0] as string[] | undefined) ?? [];
    const o = cmd.opts<{ workloadsDir: string; deep: boolean }>();
    const workloadsDir = resolve(io.cwd, o.workloadsDir);
    const named = paths.map((p) => {
      const abs = resolve(io.cwd, p);
      return existsSync(abs) && statSync(abs).isFile() && (basename(abs) === 'workload.yaml' || basename(abs) === STREAM_FILE) ? dirname(abs) : abs;
    });
    // A directory with a stream.yaml and no workload.yaml is a query stream.
    const isStream = (d: string) => isQueryStreamDir(d) && !existsSync(join(d, 'workload.yaml'));
    const isMatrix = (d: string) => existsSync(join(d, 'workload.yaml')) && workloadKind(d) === 'matrix';
    const dirs = paths.length ? named.filter((d) => !isStream(d) && !isMatrix(d)) : workloadDirs(workloadsDir);
    const matrixDirs = paths.length ? named.filter(isMatrix) : matrixWorkloadDirs(workloadsDir);
    const streamDirs = paths.length ? named.filter(isStream) : queryStreamDirs(workloadsDir);
    let failures = 0;
    const valid: Workload[] = [];
    let generic: ReturnType<typeof loadGenericCheats> = [];
    try {
      generic = loadGenericCheats();
    } catch (e) {
      if (!(e instanceof DataFileError)) throw e;
      failures += 1;
      io.err(`invalid ${e.message}`);
    }
    for (const d of dirs) {
      try {
        const w = loadWorkload(d);
        if (w.simScriptPath) loadSimScript(w.simScriptPath);
        assertSelfContainedFixture(w.workspaceDir);
        loadWorkloadRedTeam(w.dir, generic);
        valid.push(w);
        io.out(`ok      ${d}`);
      } catch (e) {
        if (!(e instanceof SetupError || e instanceof DataFileError)) throw e;
        failures += 1;
        io.err(`invalid ${e.message}`);
      }
    }
    for (const d of streamDirs) {
      try {
        const s = loadQueryStream(d);
        io.out(`ok      ${d} (query stream, ${s.queries.length} queries)`);
      } catch (e) {
        if (!(e instanceof SetupError || e instanceof DataFileError)) throw e;
        failures += 1;
        io.err(`invalid ${e.message}`);
      }
    }
    for (const d of matrixDirs) {
      try {
        const m = await loadOutcomeMatrix(d);
        io.out(`ok      ${d} (matrix, ${m.tasks.length} tasks × ${m.models.length} models)`);
      } catch (e) {
        if (!(e instanceof SetupError || e instanceof DataFileError)) throw e;
        failures += 1;
        io.err(`invalid ${e.message}`);
      }
    }
    if (!o.deep) return failures > 0 ? EXIT.setup : EXIT.ok;

    const sandbox = await decideRunSandbox({ env: io.env, realProvider: false, unsandboxed: false });
    if (sandbox.warning) io.err(`warning: ${sandbox.warning}`);
    const rows = await runRedTeam({
      workloads: valid,
      generic,
      sandbox: sandbox.mode,
      ...(io.env.PATH !== undefined ? { hostPath: io.env.PATH } : {}),
      hide: [...new Set(valid.map((w) => dirname(w.dir)))],
      ...(io.isTTY ? { onCell: (w: string, c: { variant: string }) => io.progress(`red team: ${w} × ${c.variant}`) } : {}),
    });
    io.out('');
    io.out(`red team (sandbox: ${sandbox.mode === 'auto' ? 'bwrap' : sandbox.mode}): what each hidden check said; !! marks a violation`);
    io.out(renderRedTeamTable(rows));
    const violations = redTeamViolations(rows);
    for (const v of violations) io.err(`violation ${v}`);
    if (violations.length === 0) io.out(`red team: ok, ${rows.reduce((n, r) => n + r.cells.length, 0)} check runs as required`);
    return failures > 0 || violations.length > 0 ? EXIT.setup : EXIT.ok;
  },
};
