import { existsSync, statSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { loadSimScript } from '../../../runtime/providers/sim/index.ts';
import { DataFileError } from '../../../runtime/core/yaml-document.ts';
import { EXIT, SetupError } from '../../errors.ts';
import { loadWorkload, workloadDirs } from '../../workloads/load-workload.ts';
import { assertSelfContainedFixture } from '../../workspace/fixture-links.ts';
import type { CommandSpec } from '../command.ts';

/** `bench validate [PATHS]`: check workload directories (or workload.yaml files) and their sim scripts. */
export const validateCommandSpec: CommandSpec = {
  name: 'validate',
  description: 'Validate workload files (workload.yaml and sim.yaml); exit 2 on any error.',
  configure(cmd) {
    cmd.argument('[paths...]', 'workload directories or workload.yaml files (default: every workload under --workloads-dir)').option('--workloads-dir <dir>', 'where workloads live', './workloads');
  },
  async run(cmd, args, io) {
    const paths = (args[0] as string[] | undefined) ?? [];
    const o = cmd.opts<{ workloadsDir: string }>();
    const dirs = paths.length
      ? paths.map((p) => {
          const abs = resolve(io.cwd, p);
          return existsSync(abs) && statSync(abs).isFile() && basename(abs) === 'workload.yaml' ? dirname(abs) : abs;
        })
      : workloadDirs(resolve(io.cwd, o.workloadsDir));
    let failures = 0;
    const check = (dir: string, load: () => void) => {
      try {
        load();
        io.out(`ok      ${dir}`);
      } catch (e) {
        if (!(e instanceof SetupError || e instanceof DataFileError)) throw e;
        failures += 1;
        io.err(`invalid ${e.message}`);
      }
    };
    for (const d of dirs)
      check(d, () => {
        const w = loadWorkload(d);
        if (w.simScriptPath) loadSimScript(w.simScriptPath);
        assertSelfContainedFixture(w.workspaceDir);
      });
    return failures > 0 ? EXIT.setup : EXIT.ok;
  },
};
