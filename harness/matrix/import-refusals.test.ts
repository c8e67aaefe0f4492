// What the importers refuse, naming the file and line: a RouteLLM prompt given twice with other outcomes,
// bytes that are not UTF-8, SWE-bench counts and costs past the bounds in harness/data/input-limits.json,
// a SWE-bench instance given twice; and the RouteLLM import's progress, at most one line a second.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { loadOutcomeMatrix } from './outcome-matrix.ts';
import { importRoutellm } from './import-routellm.ts';
import { importSwebenchLeaderboard } from './import-swebench.ts';

const FIXTURES = fileURLToPath(new URL('../../test/fixtures/swebench/', import.meta.url));
const HEADER = 'prompt,mistralai/Mixtral-8x7B-Instruct-v0.1,gpt-4-1106-preview\n';
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), 'import-refusals-'));
  dirs.push(d);
  return d;
}

/** A CSV with a LICENSE beside it, and an empty parent for --out. */
function csv(body: string | Buffer, name = 'mmlu_x.csv'): { file: string; parent: string } {
  const d = tmp();
  writeFileSync(join(d, 'LICENSE'), 'test licence\n');
  writeFileSync(join(d, name), body);
  const parent = join(d, 'workloads');
  mkdirSync(parent);
  return { file: join(d, name), parent };
}

describe('bench import routellm refuses, naming the file and line, and writes nothing', () => {
  it('a prompt given twice with other outcomes (in one file or across two)', async () => {
    const { file, parent } = csv(`${HEADER}"What is 2+2?",True,True\n"Other",False,True\n"What is 2+2?",True,False\n`);
    await expect(importRoutellm({ csvs: [file], out: join(parent, 'x') })).rejects.toThrow(`${file}:4: this prompt is also on line 2 with other outcomes (11 there, 10 here`);
    expect(readdirSync(parent)).toEqual([]);
    const other = join(parent, '..', 'mmlu_y.csv');
    writeFileSync(other, `${HEADER}"What is 2+2?",False,False\n`);
    const first = join(parent, '..', 'mmlu_z.csv');
    writeFileSync(first, `${HEADER}"What is 2+2?",True,True\n`);
    await expect(importRoutellm({ csvs: [first, other], out: join(parent, 'x') })).rejects.toThrow(`${other}:2: this prompt is also on ${first}:2 with other outcomes`);
    expect(readdirSync(parent)).toEqual([]);
  });
  it('but accepts a prompt repeated with the same outcomes', async () => {
    const { file, parent } = csv(`${HEADER}"Same",True,False\n"Same",True,False\n`);
    const r = await importRoutellm({ csvs: [file], out: join(parent, 'x') });
    expect(r.summary.tasks).toBe(2);
  });
  it('bytes that are not UTF-8, at their line', async () => {
    const { file, parent } = csv(Buffer.concat([Buffer.from(`${HEADER}"ok",True,True\n"caf`), Buffer.from([0xe9]), Buffer.from('",True,False\n')]));
    await expect(importRoutellm({ csvs: [file], out: join(parent, 'x') })).rejects.toThrow(`${file}:3: not valid UTF-8 (byte offset`);
    expect(readdirSync(parent)).toEqual([]);
  });
});

describe('bench import routellm streams', () => {
  it('writes what the whole-file import wrote, and reports progress at most once a second, then 100%', async () => {
    // Over 3 MiB: several 1 MiB pieces, a GSM8K file so the length clusters are relabelled in the copy.
    const rows = Array.from({ length: 12_000 }, (_, i) => `"Question ${i}: ${'word '.repeat(i % 50)}?",${i % 3 ? 'True' : 'False'},True,"${'answer '.repeat(20)}","${'a '.repeat(i % 7)}"\n`);
    const { file, parent } = csv(`prompt,mistralai/Mixtral-8x7B-Instruct-v0.1,gpt-4-1106-preview,mistralai/Mixtral-8x7B-Instruct-v0.1_response,gpt-4-1106-preview_response\n${rows.join('')}`, 'gsm8k_responses.csv');
    let clock = 0;
    const said: { at: number; text: string }[] = [];
    const r = await importRoutellm({
      csvs: [file],
      out: join(parent, 'big'),
      now: () => (clock += 300),
      progress: (text) => said.push({ at: clock, text }),
    });
    expect(readFileSync(file).length).toBeGreaterThan(3 * 1024 * 1024);
    expect(said.length).toBeGreaterThan(1);
    said.slice(1, -1).forEach((s, i) => expect(s.at - said[i]!.at).toBeGreaterThanOrEqual(1000));
    expect(said.at(-1)!.text).toMatch(/\(100%\), 12000 tasks/);
    const m = await loadOutcomeMatrix(join(parent, 'big'));
    expect(m.tasks).toHaveLength(12_000);
    expect(r.summary).toMatchObject({ tasks: 12_000, clusters: 10 });
    const sizes = [...new Set(m.tasks.map((t) => t.cluster))].map((c) => m.tasks.filter((t) => t.cluster === c).length);
    expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
    expect(r.summary.models[1]!.solvedRate).toBe(1);
    expect(existsSync(join(parent, 'big', '.tasks.jsonl'))).toBe(false);
  });
});

describe('bench import swebench-leaderboard refuses counts and costs past the bounds, an instance given twice, and bad UTF-8', () => {
  type Board = { leaderboards: { results: { per_instance_details: Record<string, Record<string, unknown>> }[] }[] };
  const variant = (mutate: (b: Board) => void) => {
    const b = JSON.parse(readFileSync(join(FIXTURES, 'leaderboards.json'), 'utf8')) as Board;
    mutate(b);
    const p = join(tmp(), 'leaderboards.json');
    writeFileSync(p, JSON.stringify(b, null, 1));
    return p;
  };
  const out = () => {
    const p = join(tmp(), 'workloads');
    mkdirSync(p);
    return p;
  };
  it.each([
    ['api_calls of 1e20', (b: Board) => (b.leaderboards[1]!.results[0]!.per_instance_details['alpha__lib-101']!.api_calls = 1e20), `"api_calls" 100000000000000000000 is above import_values.max_api_calls (100000)`],
    ['a cost of a billion USD', (b: Board) => (b.leaderboards[1]!.results[0]!.per_instance_details['alpha__lib-101']!.cost = 1e9), `"cost" 1000000000 USD is above import_values.max_cost_usd (10000)`],
  ])('%s', async (_what, mutate, message) => {
    const lb = variant(mutate);
    const parent = out();
    const run = importSwebenchLeaderboard({ leaderboards: lb, problems: join(FIXTURES, 'problems.jsonl'), out: join(parent, 'x') });
    await expect(run).rejects.toThrow(message);
    await expect(run).rejects.toThrow(`${lb}: leaderboards[1].results[0] ('Strong Model (2025-01-01)').per_instance_details['alpha__lib-101']`);
    expect(readdirSync(parent)).toEqual([]);
  });
  it('an instance given twice in one entry (JSON.parse would keep the last), naming the file, both lines and the id', async () => {
    const text = readFileSync(join(FIXTURES, 'leaderboards.json'), 'utf8');
    const open = text.indexOf('"per_instance_details": {') + '"per_instance_details": {'.length;
    // The same instance first with the opposite outcome, on the line after the object opens.
    const twice = `${text.slice(0, open)}\n      "alpha__lib-102": { "resolved": false, "cost": 0.31, "api_calls": 14 },${text.slice(open)}`;
    const lb = join(tmp(), 'leaderboards.json');
    writeFileSync(lb, twice);
    const lineOf = (at: number) => twice.slice(0, at).split('\n').length;
    const first = lineOf(twice.indexOf('"alpha__lib-102"'));
    const repeat = lineOf(twice.indexOf('"alpha__lib-102"', twice.indexOf('"alpha__lib-102"') + 1));
    const parent = out();
    await expect(importSwebenchLeaderboard({ leaderboards: lb, problems: join(FIXTURES, 'problems.jsonl'), out: join(parent, 'x') })).rejects.toThrow(
      `${lb}:${repeat}: leaderboards[1].results[0].per_instance_details: instance 'alpha__lib-102' given twice (first on line ${first})`,
    );
    expect(readdirSync(parent)).toEqual([]);
  });
  it('a problems file that is not UTF-8, at its line and column', async () => {
    const lines = readFileSync(join(FIXTURES, 'problems.jsonl'));
    const at = lines.indexOf('\n', lines.indexOf('\n') + 1) + 20;
    const bad = Buffer.from(lines);
    bad[at] = 0xff;
    const p = join(tmp(), 'problems.jsonl');
    writeFileSync(p, bad);
    await expect(importSwebenchLeaderboard({ leaderboards: join(FIXTURES, 'leaderboards.json'), problems: p, out: join(out(), 'x') })).rejects.toThrow(`${p}:3:20: not valid UTF-8 (byte offset ${at}, byte 0xff)`);
  });
});
