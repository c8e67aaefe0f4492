import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadGenericCheats } from '../../harness/redteam/cheat-data.ts';
import { COMPETENT, DO_NOTHING, runRedTeam } from '../../harness/redteam/red-team.ts';
import { discoverWorkloads } from '../../harness/workloads/load-workload.ts';
import { probeBwrap, probeUnshare } from '../../runtime/sandbox/index.ts';
import { bench, REPO_ROOT, tempDir } from '../support/cli.ts';

const hasBwrap = (await probeBwrap(process.env.PATH)) !== null;
const modes = hasBwrap ? (['bwrap', 'none'] as const) : (['none'] as const);
const workloadsDir = join(REPO_ROOT, 'workloads');
const shipped = discoverWorkloads(workloadsDir).filter((w) => w.spec.evaluate?.check && w.checkDir);
const generic = loadGenericCheats();

// Issue 12 item 2: every cheat (generic and the workload's own) fails every shipped workload's
// hidden check, the competent plan passes it (the control fails) and doing nothing fails it,
// with bubblewrap and without. One test per workload, so a failure names it.
describe.each(modes)('red team over the shipped workloads, sandbox=%s', (mode) => {
  it.each(shipped.map((w) => w.spec.name))('%s: the check says what it must for the competent plan, do-nothing and every cheat', { timeout: 600_000 }, async (name) => {
    const w = shipped.find((x) => x.spec.name === name)!;
    const [row] = await runRedTeam({ workloads: [w], generic, sandbox: mode, hostPath: process.env.PATH, hide: [workloadsDir] });
    const bad = row!.cells.filter((c) => !c.ok).map((c) => `${c.variant}: must ${c.expected}, ${c.reason}`);
    expect(bad).toEqual([]);
    expect(row!.cells.map((c) => c.variant)).toEqual(expect.arrayContaining([COMPETENT, DO_NOTHING, ...generic.map((c) => c.id)]));
  });
});

// The unshare tier (machines without bubblewrap) on one workload with a Python check, to keep the suite's time down:
// `METIS_SANDBOX=unshare bench validate --deep` runs the whole table (docs/threat-model.md).
const hasUnshare = (await probeUnshare(process.env.PATH)) !== null;
describe.skipIf(!hasUnshare)('red team, sandbox=unshare', () => {
  it('fix-a-bug-small: the check says what it must for the competent plan, do-nothing and every cheat', { timeout: 600_000 }, async () => {
    const w = shipped.find((x) => x.spec.name === 'fix-a-bug-small')!;
    const [row] = await runRedTeam({ workloads: [w], generic, sandbox: 'unshare', hostPath: process.env.PATH, hide: [workloadsDir] });
    expect(row!.cells.filter((c) => !c.ok).map((c) => `${c.variant}: must ${c.expected}, ${c.reason}`)).toEqual([]);
    expect(row!.cells.map((c) => c.variant)).toEqual(expect.arrayContaining([COMPETENT, DO_NOTHING, ...generic.map((c) => c.id)]));
  });
});

describe('bench validate --deep', () => {
  it('prints the table and exits 2, naming the workload and the cheat, when a cheat passes a weak check', { timeout: 300_000 }, async () => {
    const dir = join(tempDir(), 'workloads');
    const w = join(dir, 'weak');
    mkdirSync(join(w, 'workspace'), { recursive: true });
    mkdirSync(join(w, 'check'), { recursive: true });
    writeFileSync(join(w, 'workspace', 'app.txt'), 'broken\n');
    writeFileSync(join(w, 'check', 'expected.txt'), 'fixed\n');
    writeFileSync(
      join(w, 'workload.yaml'),
      'name: weak\ndescription: a check that trusts a file the agent writes\nsuite_version: 1\nsignal_strength: marginal\nturns:\n  - prompt: "fix app.txt"\nevaluate:\n  check:\n    command: "cmp -s app.txt .bench-check/expected.txt || test -f PASSED"\n    timeout_seconds: 20\n',
    );
    const plan = (id: string, competent: boolean, content: string) =>
      `      - id: ${id}\n        competent: ${competent}\n        steps:\n          - tool_calls:\n              - tool: write_file\n                input: { path: app.txt, content: "${content}" }\n        final: "Done."\n`;
    writeFileSync(join(w, 'sim.yaml'), `version: 1\nturns:\n  - difficulty: 0.1\n    plans:\n${plan('fix', true, 'fixed\\n')}${plan('wrong', false, 'nope\\n')}`);
    writeFileSync(join(w, 'cheats.yaml'), 'version: 1\ncheats:\n  - id: touch-passed\n    description: creates the file the weak check trusts\n    actions:\n      - shell: "touch PASSED"\n');
    const r = await bench(['validate', '--deep', '--workloads-dir', dir], { env: { PATH: process.env.PATH } });
    expect(r.code).toBe(2);
    expect(r.stdout).toMatch(/│ weak\s+│ pass\s+│ fail\s+│/);
    expect(r.stdout).toContain('pass !!');
    expect(r.stderr).toContain('violation weak × touch-passed: the check must fail but passed');
  });

  it('refuses an invalid cheats.yaml with exit 2 and its file', async () => {
    const dir = join(tempDir(), 'workloads');
    const w = join(dir, 'odd');
    mkdirSync(join(w, 'workspace'), { recursive: true });
    writeFileSync(join(w, 'workspace', 'a.txt'), 'a\n');
    writeFileSync(join(w, 'workload.yaml'), 'name: odd\ndescription: x\nsuite_version: 1\nsignal_strength: marginal\nturns:\n  - prompt: "hi"\n');
    writeFileSync(join(w, 'cheats.yaml'), 'version: 1\ncheats:\n  - id: Bad_Id\n    description: x\n    actions: []\n');
    const r = await bench(['validate', '--workloads-dir', dir], { env: { PATH: process.env.PATH } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(join(w, 'cheats.yaml'));
  });
});
