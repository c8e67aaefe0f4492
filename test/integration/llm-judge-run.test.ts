import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import type { BenchReport } from '../../schemas/types/report.ts';
import { bench, tempDir } from '../support/cli.ts';
import { anthropicText, openaiText, startFakeAnthropic, startFakeOpenAI, type LoopbackServer, type RecordedRequest } from '../support/loopback/index.ts';
import { copyWorkloads } from '../support/workload-variants.ts';

// spec §5: a workload with `rubric: llm | hybrid` is graded by its judge model through the real
// adapters (here against loopback servers); the judge's cost lands on eval.completed, never in savings.
const WORKLOAD = 'write-a-doc-from-notes';
const servers: LoopbackServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

/** A copy of the workload graded by `rubric` with `judge` as its judge model. */
function judgedWorkload(rubric: 'llm' | 'hybrid', judge: string): string {
  const dir = copyWorkloads([WORKLOAD]);
  const file = join(dir, WORKLOAD, 'workload.yaml');
  const spec = parse(readFileSync(file, 'utf8')) as { evaluate: Record<string, unknown> };
  spec.evaluate.rubric = rubric;
  spec.evaluate.llm_judge_model = judge;
  writeFileSync(file, stringify(spec, { lineWidth: 0 }));
  return dir;
}

const isJudgeRequest = (r: RecordedRequest) => r.rawBody.includes('impartial grader');
const VERDICT = JSON.stringify({ score: 0.35, confidence: 0.9, rationale: 'The design doc was never written.' });

interface WorkloadEval {
  judge_kind: string;
  score: number;
  judge_model: string | null;
  judge_cost_usd: string;
  judge_latency_ms: number;
  signals: Record<string, unknown>;
}

function workloadEvals(db: string): WorkloadEval[] {
  const conn = new Database(db, { readonly: true });
  const rows = conn.prepare("SELECT payload_json FROM events WHERE type = 'eval.completed'").all() as { payload_json: string }[];
  conn.close();
  return rows.map((r) => JSON.parse(r.payload_json) as WorkloadEval & { subject_kind: string }).filter((p) => p.subject_kind === 'workload');
}

const report = (db: string) => JSON.parse(readFileSync(db.replace(/\.db$/, '.json'), 'utf8')) as BenchReport;

describe('LLM judge in a run', () => {
  it('anthropic: rubric llm asks the judge once per rep; its verdict is the score, its cost is on eval.completed and not in savings', async () => {
    const server = await startFakeAnthropic((r) => (isJudgeRequest(r) ? anthropicText(VERDICT, { input_tokens: 800, output_tokens: 40 }) : undefined));
    servers.push(server);
    const db = join(tempDir(), 'j.db');
    const r = await bench(['run', '--provider', 'anthropic', '--base-url', server.baseURL, '--workloads-dir', judgedWorkload('llm', 'claude-haiku-4-5'), '--workload', WORKLOAD, '--db-path', db], {
      env: { PATH: process.env.PATH, ANTHROPIC_API_KEY: 'sk-ant-test' },
    });
    expect(r.code, r.stderr).not.toBe(2);
    const judged = server.requests.filter(isJudgeRequest);
    expect(judged).toHaveLength(1);
    expect((judged[0]!.body as { model: string; tools?: unknown }).model).toBe('claude-haiku-4-5');
    const [ev] = workloadEvals(db);
    expect(ev!.judge_kind).toBe('llm');
    // The hidden check failed (the fake model wrote nothing), so it gates the judge: 0.49 · its 0.35.
    expect(ev!.signals.judge_score).toBe(0.35);
    expect(ev!.score).toBeCloseTo(0.49 * 0.35, 12);
    expect(ev!.judge_model).toContain('claude-haiku-4-5');
    // 800 input + 40 output tokens at Haiku 4.5's prices ($1 / $5 per million).
    expect(ev!.judge_cost_usd).toBe('0.001');
    expect(ev!.signals.rationale_redacted).toBe('The design doc was never written.');
    const rep = report(db).workloads[0]!.reps[0]!;
    expect(rep.score).toBeCloseTo(0.49 * 0.35, 12);
    expect(rep.outcome).toBe('unsolved');
    // The judge call is not one of the agent's priced rows.
    expect(report(db).aggregate.savings.rows_total).toBe(server.requests.length - judged.length);
  });

  it('openai: an unparseable judge answer gives eval.failed and the heuristic verdict stands', async () => {
    const server = await startFakeOpenAI((r) => (isJudgeRequest(r) ? openaiText('I think it is fine.') : undefined));
    servers.push(server);
    const db = join(tempDir(), 'o.db');
    const r = await bench(
      ['run', '--model', 'gpt-5-mini', '--baseline', 'gpt-5', '--base-url', server.baseURL, '--workloads-dir', judgedWorkload('llm', 'gpt-5-mini'), '--workload', WORKLOAD, '--db-path', db],
      { env: { PATH: process.env.PATH, OPENAI_API_KEY: 'sk-test-openai' } },
    );
    expect(r.code, r.stderr).not.toBe(2);
    expect(server.requests.filter(isJudgeRequest)).toHaveLength(1);
    const conn = new Database(db, { readonly: true });
    const failed = conn.prepare("SELECT payload_json FROM events WHERE type = 'eval.failed'").all() as { payload_json: string }[];
    conn.close();
    expect(failed.map((f) => (JSON.parse(f.payload_json) as { failure_mode: string }).failure_mode)).toEqual(['judge_output_invalid']);
    const evals = workloadEvals(db);
    expect(evals.map((e) => e.judge_kind)).toEqual(['heuristic']);
    expect(evals[0]!.signals.judge_failed).toBeDefined();
  });

  it('sim: the emulator does not play a judge; the heuristic verdict stands and says why', async () => {
    const db = join(tempDir(), 's.db');
    const r = await bench(['run', '--provider', 'sim', '--workloads-dir', judgedWorkload('llm', 'claude-haiku-4-5'), '--workload', WORKLOAD, '--db-path', db], { env: { PATH: process.env.PATH } });
    expect(r.code, r.stderr).not.toBe(2);
    const evals = workloadEvals(db);
    expect(evals).toHaveLength(1);
    expect(evals[0]!.judge_kind).toBe('heuristic');
    expect(evals[0]!.judge_cost_usd).toBe('0');
    expect(String(evals[0]!.signals.judge_unavailable)).toContain('simulated provider does not emulate an LLM judge');
  });
});
