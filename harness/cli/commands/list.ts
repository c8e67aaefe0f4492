import Table from 'cli-table3';
import { resolve } from 'node:path';
import { discoverWorkloads } from '../../workloads/load-workload.ts';
import type { CommandSpec } from '../command.ts';

/** `bench list`: the workloads with signal strength, turns and description. */
export const listCommandSpec: CommandSpec = {
  name: 'list',
  description: 'List the workloads with their signal strength, turn count and description.',
  configure(cmd) {
    cmd.option('--workloads-dir <dir>', 'where workloads live', './workloads').option('--json', 'print JSON instead of a table', false);
  },
  async run(cmd, _args, io) {
    const o = cmd.opts<{ workloadsDir: string; json: boolean }>();
    const all = discoverWorkloads(resolve(io.cwd, o.workloadsDir));
    const rows = all.map((w) => ({
      name: w.spec.name,
      signal_strength: w.spec.signal_strength ?? 'high',
      turns: w.spec.turns.length,
      check: Boolean(w.spec.evaluate?.check),
      sim_script: w.simScriptPath !== null,
      description: w.spec.description,
    }));
    if (o.json) {
      io.out(JSON.stringify(rows, null, 2));
      return 0;
    }
    const t = new Table({ head: ['workload', 'signal', 'turns', 'check', 'sim', 'description'], style: { head: [], border: [] } });
    for (const r of rows) t.push([r.name, r.signal_strength, r.turns, r.check ? 'yes' : 'no', r.sim_script ? 'yes' : 'no', r.description]);
    io.out(t.toString());
    return 0;
  },
};
