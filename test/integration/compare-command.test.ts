import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import type { BenchReport } from '../../schemas/types/report.ts';
import type { CliIO } from '../../harness/io/cli-io.ts';
import { createCompareCommandSpec } from '../../harness/cli/commands/compare.ts';
import type { FingerprintArmOptions } from '../../harness/compare/index.ts';
import { loadReport } from '../../harness/report/find-report.ts';
import type { RunSuiteOptions, RunSuiteResult } from '../../harness/suite/run-suite-options.ts';
import { validatorFor } from '../../runtime/core/schemas.ts';
import type { CompareArtifact } from '../../schemas/types/compare.ts';
import { bench, REPO_ROOT, tempDir } from '../support/cli.ts';

const FIXTURES = join(REPO_ROOT, 'test/fixtures/reports');
const validate = validatorFor<CompareArtifact>('compare.schema.json');
const readArtifact = (path: string): CompareArtifact => JSON.parse(readFileSync(path, 'utf8')) as CompareArtifact;

describe('bench compare A.json B.json', () => {
  it('compares two finished reports: one table, the verdict line, and a JSON artifact beside B that validates', async () => {
    const dir = tempDir();
    const b = join(dir, 'tonight.json');
    writeFileSync(b, readFileSync(join(FIXTURES, 'a3.json')));
    const r = await bench(['compare', join(FIXTURES, 'single.json'), b]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^\*\*\* SIMULATED PROVIDER/);
    expect(r.stdout).toMatch(/metric\s+│ A \(single\)\s+│ B \(tonight\)\s+│ delta \(B − A\)\s+│ 95% CI/);
    // The two share no (pass, workload, rep) unit: no row sets one report's whole figure beside the other's.
    expect(r.stdout).toMatch(/slot4_inversion_rate \(pass C\)\s+│ n\/a\s+│ n\/a/);
    expect(r.stdout).toMatch(/units: the reports share no \(pass, workload, rep\) unit \(3 only in A, 18 only in\s+B\)/);
    expect(r.stdout).toMatch(/tightness test .*: NOT_APPLICABLE/);
    const out = join(dir, 'compare-single-vs-tonight.json');
    expect(r.stdout).toContain(`json: ${out}`);
    const artifact = readArtifact(out);
    expect(validate(artifact), JSON.stringify(validate.errors)).toBe(true);
    expect(artifact.a).toMatchObject({ label: 'single', report_path: join(FIXTURES, 'single.json'), protocol: 'single' });
    expect(artifact.b).toMatchObject({ protocol: 'a3', report_path: b });
  });

  it('a report against itself: zero deltas in the JSON, and stdout says the comparison cannot distinguish the arms instead of a table of zeros', async () => {
    const dir = tempDir();
    const a3 = join(FIXTURES, 'a3.json');
    const r = await bench(['compare', a3, a3, '--json', join(dir, 'x', 'cmp.json')]);
    expect(r.code).toBe(0);
    const artifact = readArtifact(join(dir, 'x', 'cmp.json'));
    expect(artifact.statistics).toMatchObject({ confidence: 0.95, cluster: 'workload' });
    expect(artifact.rows.filter((row) => row.ci !== null).every((row) => row.ci!.low === 0 && row.ci!.high === 0)).toBe(true);
    expect(artifact.rows.filter((row) => row.delta !== null).every((row) => Number(row.delta) === 0)).toBe(true);
    expect(artifact.routing).toMatchObject({ pass: 'C', sample: 'in_sample', identical: true });
    expect(r.stdout.replace(/\s+/g, ' ')).toContain('The comparison cannot distinguish A and B here: on all 6 (workload, rep) units of pass C both arms routed every turn to the same model');
    expect(r.stdout.replace(/\s+/g, ' ')).toContain('own seeded twin at similarity 1');
    expect(r.stdout).toMatch(/\(no metric differs between A and B; its \d+ rows are in the JSON artifact\)/);
    expect(r.stdout).not.toMatch(/quality_mean \(aggregate\)/);
  });

  it('arms that differ on a routed unit get the table, and say where routing was judged', async () => {
    const dir = tempDir();
    const b = structuredClone(loadReport(join(FIXTURES, 'a3.json')).report);
    const c = b.workloads.find((w) => w.pass === 'C')!;
    c.reps[0]!.solved = !c.reps[0]!.solved;
    writeFileSync(join(dir, 'b.json'), JSON.stringify(b));
    const r = await bench(['compare', join(FIXTURES, 'a3.json'), join(dir, 'b.json'), '--json', join(dir, 'cmp.json')]);
    expect(r.code).toBe(0);
    expect(readArtifact(join(dir, 'cmp.json')).routing).toMatchObject({ pass: 'C', identical: false });
    expect(r.stdout.replace(/\s+/g, ' ')).toContain('Routing judged in sample (pass C: the reports hold no C-oos;');
    expect(r.stdout).toMatch(/solved_rate \(pass C\)/);
  });

  it('a missing report is exit 2 naming the file', async () => {
    const dir = tempDir();
    const r = await bench(['compare', join(dir, 'nope.json'), join(FIXTURES, 'a3.json')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${join(dir, 'nope.json')}: no such report file`);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('an invalid report is exit 2 naming the file and the problem', async () => {
    const dir = tempDir();
    const bad = join(dir, 'bad.json');
    const report = JSON.parse(readFileSync(join(FIXTURES, 'a3.json'), 'utf8')) as { aggregate: unknown };
    delete (report as { aggregate?: unknown }).aggregate;
    writeFileSync(bad, JSON.stringify(report));
    const r = await bench(['compare', join(FIXTURES, 'a3.json'), bad]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(new RegExp(`${bad.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: not a valid bench report .*aggregate`));
  });

  it('lists its flags in --help', async () => {
    const r = await bench(['compare', '--help']);
    expect(r.code).toBe(0);
    for (const flag of ['--seed-passes', '--include-marginal', '--workload', '--workloads-dir', '--seed', '--model', '--baseline', '--quiet', '--out-dir', '--json', '--embedding-provider'])
      expect(r.stdout).toContain(flag);
  });
});

/** Runs the compare command with a stand-in runner, through commander as main.ts does. */
async function compareWith(runSuite: (o: RunSuiteOptions & Partial<FingerprintArmOptions>) => Promise<RunSuiteResult>, args: string[], cwd: string) {
  const out: string[] = [];
  const io: CliIO = { out: (s) => out.push(s), err: (s) => out.push(s), isTTY: false, progress: () => {}, env: {}, cwd };
  const spec = createCompareCommandSpec({ runSuite, nowUs: () => Date.UTC(2026, 10, 23, 1, 2, 3) * 1000 });
  const program = new Command('bench').exitOverride();
  const cmd = program.command('compare').exitOverride();
  spec.configure(cmd);
  let code = -1;
  cmd.action(async (...a: unknown[]) => {
    code = await spec.run(cmd, a, io);
  });
  await program.parseAsync(['compare', ...args], { from: 'user' });
  return { code, stdout: out.join('\n') };
}

// The real runner does not take fingerprintVersion yet (the lead wires it), so the orchestration is
// exercised end to end through the CLI with a stand-in runner that answers like runSuite.
describe('bench compare at terminal widths', () => {
  it('fits its table to 80, 100 and 120 columns', async () => {
    const dir = tempDir();
    for (const width of [80, 100, 120]) {
      const r = await bench(['compare', join(FIXTURES, 'single.json'), join(FIXTURES, 'a3.json'), '--width', String(width), '--json', join(dir, `${width}.json`)]);
      expect(r.code, r.stderr).toBe(0);
      const table = r.stdout.split('\n').filter((l) => /[│┌└]/.test(l));
      expect(table.length).toBeGreaterThan(5);
      for (const line of table) expect([...line].length, line).toBeLessThanOrEqual(width);
    }
  });
});

describe('bench compare --fail-on-verdict', () => {
  it('exits 1 on a FAIL tightness verdict only when asked, and says why', async () => {
    const dir = tempDir();
    const report = JSON.parse(readFileSync(join(FIXTURES, 'a3.json'), 'utf8')) as BenchReport;
    const v1 = report.protocol_metrics!.cluster_tightness.v1!;
    // v2 no tighter than v1: test 5 fails.
    report.protocol_metrics!.cluster_tightness.v2 = { ...v1 };
    const b = join(dir, 'b.json');
    writeFileSync(b, JSON.stringify(report));
    const plain = await bench(['compare', join(FIXTURES, 'a3.json'), b, '--json', join(dir, 'plain.json')]);
    expect(plain.stdout).toMatch(/tightness test .*: FAIL/);
    expect(plain.code).toBe(0);
    const strict = await bench(['compare', join(FIXTURES, 'a3.json'), b, '--fail-on-verdict', '--json', join(dir, 'strict.json')]);
    expect(strict.code).toBe(1);
    expect(strict.stdout).toContain('FAIL: the cluster-tightness verdict failed (--fail-on-verdict)');
    // --json keeps the artifact out of the fixtures folder.
    const passing = await bench(['compare', join(FIXTURES, 'a3.json'), join(FIXTURES, 'a3.json'), '--fail-on-verdict', '--json', join(dir, 'self.json')]);
    expect(passing.code).toBe(0);
  });
});

describe('bench compare v1 v2 (runner injected)', () => {
  it('runs both arms with the run flags, compares v1 against v2 and writes compare.json in the run folder', async () => {
    const cwd = tempDir();
    const calls: (RunSuiteOptions & Partial<FingerprintArmOptions>)[] = [];
    const runSuite = async (o: RunSuiteOptions & Partial<FingerprintArmOptions>): Promise<RunSuiteResult> => {
      calls.push(o);
      const report = structuredClone(loadReport(join(FIXTURES, 'a3.json')).report);
      report.provenance.fingerprint_version = o.fingerprintVersion!;
      // v2 tightens the clusters enough to pass test 5 against the fixture's v1 figures (0.473 / 0.305).
      if (o.fingerprintVersion === 'v2') report.protocol_metrics!.cluster_tightness = { v1: null, v2: { intra: 0.62, inter: 0.2, separation: 0.42, fingerprints: 11, pairs_intra: 19, pairs_inter: 36 } };
      mkdirSync(dirname(o.jsonPath!), { recursive: true });
      writeFileSync(o.jsonPath!, JSON.stringify(report));
      return { report, dbPath: o.dbPath!, jsonPath: o.jsonPath! };
    };
    const r = await compareWith(runSuite, ['v1', 'v2', '--workload', 'fix-a-bug-small', '--seed-passes', '2', '--seed', '3', '--out-dir', 'runs', '--embedding-provider', 'test:deterministic-16', '--quiet'], cwd);
    expect(r.code).toBe(0);
    expect(calls.map((c) => [c.fingerprintVersion, c.embeddingProvider, c.protocol, c.seed, c.seedPasses, c.workloadNames])).toEqual([
      ['v1', null, 'a3', 3, 2, ['fix-a-bug-small']],
      ['v2', 'test:deterministic-16', 'a3', 3, 2, ['fix-a-bug-small']],
    ]);
    const runDir = join(cwd, 'runs', 'compare-2026-11-23T01-02-03Z');
    expect(existsSync(join(runDir, 'v1.json')) && existsSync(join(runDir, 'v2.json'))).toBe(true);
    const artifact = readArtifact(join(runDir, 'compare.json'));
    expect(validate(artifact), JSON.stringify(validate.errors)).toBe(true);
    expect(artifact.tightness_verdict).toMatchObject({ verdict: 'pass', source: 'a_v1_vs_b_v2' });
    // The stand-in answers the same report for both arms: the comparison says it cannot tell them apart.
    expect(r.stdout.replace(/\s+/g, ' ')).toContain('The comparison cannot distinguish A and B here');
    // Routing is judged out of sample by default.
    expect(calls.map((c) => c.holdout)).toEqual(['workload', 'workload']);
    expect(r.stdout.replace(/\s+/g, ' ')).toMatch(/: PASS — v1 intra 0\.473 inter 0\.305; v2 intra 0\.620 inter 0\.200;/);
  });
});

describe('bench compare v1 v2 --runs N (runner injected; issue 23 item 4)', () => {
  it('runs each arm once per seed with its own DBs, pairs the runs by seed and prints the two-level interval', async () => {
    const cwd = tempDir();
    const calls: (RunSuiteOptions & Partial<FingerprintArmOptions>)[] = [];
    const runSuite = async (o: RunSuiteOptions & Partial<FingerprintArmOptions>): Promise<RunSuiteResult> => {
      calls.push(o);
      const report = structuredClone(loadReport(join(FIXTURES, 'a3.json')).report);
      report.provenance.fingerprint_version = o.fingerprintVersion!;
      report.provenance.seed = o.seed;
      // On seed 4 only, v2's learning went wrong: it solves no Pass C rep (a run-level shift that one run alone cannot see).
      if (o.fingerprintVersion === 'v2' && o.seed === 4) for (const w of report.workloads.filter((x) => x.pass === 'C')) for (const rep of w.reps) rep.solved = false;
      const c = report.protocol_metrics!.passes.find((p) => p.pass === 'C')!;
      c.solved_rate = report.workloads.filter((w) => w.pass === 'C').flatMap((w) => w.reps).filter((x) => x.solved).length / 6;
      mkdirSync(dirname(o.jsonPath!), { recursive: true });
      writeFileSync(o.jsonPath!, JSON.stringify(report));
      return { report, dbPath: o.dbPath!, jsonPath: o.jsonPath! };
    };
    const r = await compareWith(runSuite, ['v1', 'v2', '--runs', '3', '--seed', '3', '--out-dir', 'runs', '--quiet', '--width', '120'], cwd);
    expect(r.code, r.stdout).toBe(0);
    const runDir = join(cwd, 'runs', 'compare-2026-11-23T01-02-03Z');
    expect(calls.map((c) => [c.fingerprintVersion, c.seed, c.dbPath, c.patternsDbPath])).toEqual([
      ['v1', 3, join(runDir, 'v1.seed-3.db'), null],
      ['v1', 4, join(runDir, 'v1.seed-4.db'), null],
      ['v1', 5, join(runDir, 'v1.seed-5.db'), null],
      ['v2', 3, join(runDir, 'v2.seed-3.db'), null],
      ['v2', 4, join(runDir, 'v2.seed-4.db'), null],
      ['v2', 5, join(runDir, 'v2.seed-5.db'), null],
    ]);
    expect(existsSync(join(runDir, 'v1.runs.json')) && existsSync(join(runDir, 'v2.runs.json'))).toBe(true);
    const artifact = readArtifact(join(runDir, 'compare.json'));
    expect(validate(artifact), JSON.stringify(validate.errors)).toBe(true);
    expect(artifact.runs).toMatchObject({ paired: 3, seeds: [3, 4, 5] });
    const solved = artifact.rows.find((x) => x.metric === 'solved_rate' && x.scope === 'pass C')!;
    expect(Number(solved.delta)).toBeCloseTo(-5 / 18, 12);
    expect(solved.ci!.two_level!.runs).toBe(3);
    expect(solved.ci!.two_level!.between_se!).toBeGreaterThan(0);
    expect(r.stdout).toContain('runs: 3 paired by seed (seeds 3, 4, 5)');
    expect(r.stdout.replace(/\s+/g, ' ')).toContain('its interval includes the between-run variance');
    // Two runs of three saw no difference, one lost every task: across runs that is not decided either way.
    expect(r.stdout.replace(/\s+/g, ' ')).toMatch(/solved rate \(pass C\), B against A: inconclusive: somewhere between −\d+ and \+\d+ pts/);
  });

  it('--seeds with --arm runs both routing configs on those seeds; --runs with two report files is refused', async () => {
    const cwd = tempDir();
    const calls: RunSuiteOptions[] = [];
    for (const n of ['a', 'b']) writeFileSync(join(cwd, `${n}.yaml`), 'rules: []\n');
    const runSuite = async (o: RunSuiteOptions): Promise<RunSuiteResult> => {
      calls.push(o);
      const report = structuredClone(loadReport(join(FIXTURES, 'a3.json')).report);
      mkdirSync(dirname(o.jsonPath!), { recursive: true });
      writeFileSync(o.jsonPath!, JSON.stringify(report));
      return { report, dbPath: o.dbPath!, jsonPath: o.jsonPath! };
    };
    const r = await compareWith(runSuite, ['--arm', `x=${join(cwd, 'a.yaml')}`, '--arm', `y=${join(cwd, 'b.yaml')}`, '--seeds', '7,9', '--out-dir', 'runs', '--quiet'], cwd);
    expect(r.code, r.stdout).toBe(0);
    expect(calls.map((c) => [c.routingConfigPath, c.seed])).toEqual([
      [join(cwd, 'a.yaml'), 7],
      [join(cwd, 'a.yaml'), 9],
      [join(cwd, 'b.yaml'), 7],
      [join(cwd, 'b.yaml'), 9],
    ]);
    expect(r.stdout).toContain('runs: 2 paired by seed (seeds 7, 9)');
    const refused = await bench(['compare', join(FIXTURES, 'a3.json'), join(FIXTURES, 'a3.json'), '--runs', '2']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/--runs\/--seeds run the arms themselves/);
  });
});
