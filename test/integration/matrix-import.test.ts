import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Decimal } from 'decimal.js';
import { describe, expect, it } from 'vitest';
import { loadOutcomeMatrix } from '../../harness/matrix/outcome-matrix.ts';
import { loadPriceTable } from '../../runtime/pricing/index.ts';
import { createTiktokenCounter } from '../../runtime/providers/sim/token-counter.ts';
import { bench, REPO_ROOT, tempDir } from '../support/cli.ts';

const ROUTELLM = '/work/shared/data/routellm-evals';
const FIXTURES = join(REPO_ROOT, 'test', 'fixtures', 'swebench');
const MIXTRAL = 'mistral:mixtral-8x7b-instruct-v0.1';
const GPT4 = 'openai:gpt-4-1106-preview';

/** An empty parent directory for --out, so a test can see that nothing (not even a temp dir) was left. */
function outParent(): string {
  const p = join(tempDir(), 'workloads');
  mkdirSync(p);
  return p;
}

describe.skipIf(!existsSync(ROUTELLM))('bench import routellm on the real RouteLLM files', () => {
  it('MMLU: subjects become clusters, the contaminated prompt of each subject is left out, cost is prompt tokens + one answer token at list price', async () => {
    const out = join(outParent(), 'mmlu-subset');
    // college_chemistry (100 questions) and machine_learning (112) each hold one prompt RouteLLM lists as contaminated.
    const csvs = ['mmlu_college_chemistry.csv', 'mmlu_machine_learning.csv'].map((f) => join(ROUTELLM, 'mmlu', f));
    const r = await bench(['import', 'routellm', ...csvs, '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('read 212 prompts from 2 CSV file(s); left out 2 contaminated prompt(s)');
    const m = await loadOutcomeMatrix(out);
    expect(m.tasks).toHaveLength(210);
    expect(m.models.map((x) => x.id)).toEqual([MIXTRAL, GPT4]);
    expect(new Set(m.tasks.map((t) => t.cluster))).toEqual(new Set(['college_chemistry', 'machine_learning']));
    const contaminated = readFileSync(join(ROUTELLM, 'mmlu', 'contaminated_prompts.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { eval_prompt: string }).eval_prompt);
    expect(m.tasks.filter((t) => contaminated.includes(t.text))).toEqual([]);
    const prices = loadPriceTable();
    const count = createTiktokenCounter();
    const t0 = m.tasks[0]!;
    const cell = m.cells[0]![1]!;
    expect(cell.inputTokens).toBe(count.count(t0.text));
    expect(cell.outputTokens).toBe(1);
    const rate = prices.rates(GPT4)!;
    expect(cell.costUsd.equals(rate.input.times(cell.inputTokens!).plus(rate.output).dividedBy(1e6))).toBe(true);
    expect(m.cells.flat().every((c) => c.score === 0 || c.score === 1)).toBe(true);
    // The licence and the credit travel with the data.
    expect(readFileSync(join(out, 'LICENSE'), 'utf8')).toBe(readFileSync(join(ROUTELLM, 'LICENSE'), 'utf8'));
    expect(readFileSync(join(out, 'README.md'), 'utf8')).toContain('Ong et al., 2024');
    expect(m.source).toMatchObject({ licence: 'Apache-2.0' });
  });

  it('GSM8K: 1,319 prompts less 12 contaminated, output tokens counted from each model’s answer, 10 length clusters', async () => {
    const out = join(outParent(), 'gsm8k');
    const r = await bench(['import', 'routellm', join(ROUTELLM, 'gsm8k', 'gsm8k_responses.csv'), '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('read 1319 prompts from 1 CSV file(s); left out 12 contaminated prompt(s)');
    const m = await loadOutcomeMatrix(out);
    expect(m.tasks).toHaveLength(1307);
    const sizes = [...new Set(m.tasks.map((t) => t.cluster))].sort().map((c) => m.tasks.filter((t) => t.cluster === c).length);
    expect(sizes).toHaveLength(10);
    expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
    // Answers differ in length, so the two models' output tokens differ on most tasks.
    expect(m.cells.filter((row) => row[0]!.outputTokens !== row[1]!.outputTokens).length).toBeGreaterThan(1000);
    expect(m.cells.every((row) => row[0]!.costUsd.gt(0) && row[1]!.costUsd.gt(row[0]!.costUsd))).toBe(true);
    // The shipped workload is exactly what the importer makes from these files.
    expect(readFileSync(join(out, 'outcomes.jsonl'), 'utf8')).toBe(readFileSync(join(REPO_ROOT, 'workloads', 'routellm-gsm8k', 'outcomes.jsonl'), 'utf8'));
  });
});

describe('the shipped RouteLLM matrices', () => {
  it.each([
    ['routellm-mmlu', 14_037, 57],
    ['routellm-gsm8k', 1_307, 10],
  ])('%s loads (%i tasks, %i clusters) with its Apache-2.0 licence, origin and credit beside it', async (name, tasks, clusters) => {
    const dir = join(REPO_ROOT, 'workloads', name);
    const m = await loadOutcomeMatrix(dir);
    expect(m.tasks).toHaveLength(tasks);
    expect(new Set(m.tasks.map((t) => t.cluster)).size).toBe(clusters);
    expect(m.models.map((x) => x.id)).toEqual([MIXTRAL, GPT4]);
    expect(m.source).toMatchObject({ licence: 'Apache-2.0', url: expect.stringContaining('0b64fdafe049e596a3f5657c219329f24af24198') as unknown });
    expect(readFileSync(join(dir, 'LICENSE'), 'utf8')).toMatch(/Apache License\s+Version 2\.0/);
    const readme = readFileSync(join(dir, 'README.md'), 'utf8');
    expect(readme).toContain('lm-sys/RouteLLM');
    expect(readme).toContain('commit 0b64fdafe049e596a3f5657c219329f24af24198');
    expect(readme).toContain('Ong et al., 2024, "RouteLLM: Learning to Route LLMs with Preference Data"');
  });
});

describe('bench import routellm refuses bad input with exit 2 and writes nothing', () => {
  const HEADER = 'prompt,mistralai/Mixtral-8x7B-Instruct-v0.1,gpt-4-1106-preview\n';
  function csvDir(name: string, body: string): string {
    const dir = tempDir();
    writeFileSync(join(dir, 'LICENSE'), 'test licence\n');
    writeFileSync(join(dir, name), body);
    return join(dir, name);
  }
  it.each([
    ['a missing model column', 'mmlu_x.csv', 'prompt,gpt-4-1106-preview\n"Q1\nA. a\nAnswer:",True\n', ':1: missing model column \'mistralai/Mixtral-8x7B-Instruct-v0.1\''],
    ['a value that is not True/False', 'mmlu_x.csv', `${HEADER}"Q1",True,True\n"Q2\nsecond line",maybe,False\n`, ":3: column 'mistralai/Mixtral-8x7B-Instruct-v0.1' holds 'maybe', expected True or False"],
    ['an unclosed quote', 'mmlu_x.csv', `${HEADER}"Q1",True,True\n"Q2,True,False\n`, ':3: a quoted field is never closed'],
    ['a GSM8K file without response columns', 'gsm8k_responses.csv', `${HEADER}"Q1",True,True\n`, ":1: missing response column 'mistralai/Mixtral-8x7B-Instruct-v0.1_response'"],
    ['a file name that names no data set', 'results.csv', `${HEADER}"Q1",True,True\n`, 'cannot tell the data set from the file name'],
  ])('%s', async (_what, name, body, message) => {
    const csv = csvDir(name, body);
    const parent = outParent();
    const r = await bench(['import', 'routellm', csv, '--out', join(parent, 'bad')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(csv);
    expect(r.stderr).toContain(message);
    expect(readdirSync(parent)).toEqual([]);
  });

  it('a U+FFFD in the data survives the round trip (written as its JSON escape)', async () => {
    const out = join(outParent(), 'odd-chars');
    const r = await bench(['import', 'routellm', csvDir('mmlu_x.csv', `${HEADER}"Q \uFFFD here",True,False\n`), '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    expect((await loadOutcomeMatrix(out)).tasks[0]!.text).toBe('Q \uFFFD here');
  });

  it('an unreadable file (a directory where the CSV should be)', async () => {
    const parent = outParent();
    const csv = join(tempDir(), 'mmlu_x.csv');
    mkdirSync(csv);
    const r = await bench(['import', 'routellm', csv, '--out', join(parent, 'bad')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${csv}: cannot read the CSV: EISDIR (check the path and its permissions)`);
    expect(readdirSync(parent)).toEqual([]);
  });

  it('a missing file, and an --out that already holds files', async () => {
    const parent = outParent();
    const missing = await bench(['import', 'routellm', join(tempDir(), 'mmlu_gone.csv'), '--out', join(parent, 'bad')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/mmlu_gone\.csv: cannot read the CSV: ENOENT/);
    expect(readdirSync(parent)).toEqual([]);
    mkdirSync(join(parent, 'taken'));
    writeFileSync(join(parent, 'taken', 'keep.txt'), 'x');
    const taken = await bench(['import', 'routellm', csvDir('mmlu_x.csv', `${HEADER}"Q1",True,True\n`), '--out', join(parent, 'taken')]);
    expect(taken.code).toBe(2);
    expect(taken.stderr).toContain('already exists and is not empty');
    expect(readdirSync(join(parent, 'taken'))).toEqual(['keep.txt']);
  });
});

describe('bench import usage errors', () => {
  it.each([
    [['import', 'huggingface', '--out', 'x'], "unknown source 'huggingface' (use routellm or swebench-leaderboard)"],
    [['import', 'routellm', join(FIXTURES, 'problems.jsonl'), '--strict', '--out', 'x'], '--strict belongs to the other source'],
    [['import', 'swebench-leaderboard', '--problems', join(FIXTURES, 'problems.jsonl'), '--out', 'x'], 'needs --leaderboards FILE and --problems FILE.jsonl'],
    [['import', 'swebench-leaderboard', '--leaderboards', join(FIXTURES, 'leaderboards.json'), '--problems', join(FIXTURES, 'problems.jsonl'), '--out', 'Not A Slug'], "the directory name 'Not A Slug' becomes the workload name and must be a slug"],
  ])('bench %j exits 2 and says what to do', async (args, message) => {
    const cwd = tempDir();
    const r = await bench(args, { cwd });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
    expect(readdirSync(cwd)).toEqual([]);
  });
});

describe('bench import swebench-leaderboard (synthetic files of the leaderboard shape)', () => {
  const LB = join(FIXTURES, 'leaderboards.json');
  const PROBLEMS = join(FIXTURES, 'problems.jsonl');

  it('imports the complete entries with recorded USD and calls, repos as clusters, and says which entries it skipped and why', async () => {
    const out = join(outParent(), 'swe-small');
    const r = await bench(['import', 'swebench-leaderboard', '--leaderboards', LB, '--problems', PROBLEMS, '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain("note: skipped entry 'Headline Only': no per_instance_details");
    expect(r.stderr).toMatch(/note: skipped entry 'Inconsistent Entry': per-instance resolved rate 100\.0% differs from its headline 50% by more than 5 points/);
    expect(r.stdout).toContain('imported 2 entries, skipped 2');
    const m = await loadOutcomeMatrix(out);
    expect(m.models).toEqual([
      { id: '20250101_mini-swe-agent_strong', price_source: 'recorded', label: 'Strong Model (2025-01-01)' },
      { id: '20250102_mini-swe-agent_cheap', price_source: 'recorded', label: 'Cheap Model' },
    ]);
    expect(m.tasks.map((t) => t.cluster)).toEqual(['alpha/lib', 'alpha/lib', 'alpha/lib', 'beta/web', 'beta/web', 'gamma/num', 'gamma/num', 'gamma/num']);
    expect(m.tasks[0]!.text).toBe('Parser drops the last token when the input ends without a newline.');
    expect(m.cells[4]![0]).toEqual({ score: 0, costUsd: new Decimal('2.05'), calls: 62 });
    expect(m.cells[1]![1]).toEqual({ score: 0, costUsd: new Decimal('0.031'), calls: 20 });
    expect(m.source.licence).toBe('CC-BY-NC-4.0');
  });

  it('--strict refuses the inconsistent entry instead of skipping it', async () => {
    const parent = outParent();
    const r = await bench(['import', 'swebench-leaderboard', '--leaderboards', LB, '--problems', PROBLEMS, '--strict', '--exclude', 'Headline Only', '--out', join(parent, 'x')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("entry 'Inconsistent Entry': per-instance resolved rate 100.0% differs from its headline 50%");
    expect(readdirSync(parent)).toEqual([]);
  });

  type Board = { leaderboards: { name: string; results: Record<string, unknown>[] }[] };
  const variant = (mutate: (b: Board) => void): string => {
    const b = JSON.parse(readFileSync(LB, 'utf8')) as Board;
    mutate(b);
    const p = join(tempDir(), 'leaderboards.json');
    writeFileSync(p, JSON.stringify(b, null, 1));
    return p;
  };
  const details = (b: Board, i: number) => b.leaderboards[1]!.results[i]!.per_instance_details as Record<string, Record<string, unknown>>;

  it.each([
    ['a missing model (an entry without its folder)', () => variant((b) => delete b.leaderboards[1]!.results[1]!.folder), 'results[1]: missing model: no "folder"'],
    ['an entry missing an instance (a missing cell)', () => variant((b) => delete details(b, 0)['beta__web-202']), "missing cell: no per_instance_details for instance 'beta__web-202'"],
    ['an unknown instance', () => variant((b) => (details(b, 1)['delta__x-9'] = { resolved: true, cost: 0.1, api_calls: 3 })), "per_instance_details['delta__x-9']: unknown instance"],
    ['a negative cost', () => variant((b) => (details(b, 0)['alpha__lib-101']!.cost = -1)), '"cost" must be a non-negative number of USD (got -1)'],
    ['bad JSON', () => {
      const p = join(tempDir(), 'leaderboards.json');
      writeFileSync(p, readFileSync(LB, 'utf8').replace('"resolved": 37.5', '"resolved": 37.5,,'));
      return p;
    }, 'bad JSON'],
    ['no such leaderboard', () => variant((b) => (b.leaderboards[1]!.name = 'verified')), "no leaderboard named 'bash-only' (available: test, verified"],
  ])('%s: exit 2, naming the file and the entry, nothing written', async (_what, make, message) => {
    const lb = make();
    const parent = outParent();
    const r = await bench(['import', 'swebench-leaderboard', '--leaderboards', lb, '--problems', PROBLEMS, '--out', join(parent, 'x')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(lb);
    expect(r.stderr).toContain(message);
    expect(readdirSync(parent)).toEqual([]);
  });

  it('names the line of bad JSON in the leaderboards file and in the problems file', async () => {
    const lb = join(tempDir(), 'leaderboards.json');
    writeFileSync(lb, readFileSync(LB, 'utf8').replace('"resolved": 37.5', '"resolved": 37.5,,'));
    const lineNo = readFileSync(lb, 'utf8').split('\n').findIndex((l) => l.includes('37.5,,')) + 1;
    const a = await bench(['import', 'swebench-leaderboard', '--leaderboards', lb, '--problems', PROBLEMS, '--out', join(outParent(), 'x')]);
    expect(a.stderr).toContain(`${lb}:${lineNo}: bad JSON`);
    const problems = join(tempDir(), 'problems.jsonl');
    const lines = readFileSync(PROBLEMS, 'utf8').split('\n');
    lines[2] = lines[2]!.slice(0, 20);
    writeFileSync(problems, lines.join('\n'));
    const b = await bench(['import', 'swebench-leaderboard', '--leaderboards', LB, '--problems', problems, '--out', join(outParent(), 'x')]);
    expect(b.code).toBe(2);
    expect(b.stderr).toContain(`${problems}:3: bad JSON`);
    expect(b.stderr).toContain('one JSON object per line');
  });
});
