// Harness + runtime overhead per simulated model call (target: <= 2 ms median, spec §12). Prints JSON.
// Runs a synthetic many-turn workload through the real `bench run` path (bus, trace writer, routing,
// sim provider with tokenizer and cache emulation, dispatcher, evaluator) and measures, from the trace
// itself, each turn's wall time minus the time its tools spent executing, per LLM call.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { main } from '../../harness/cli/main.ts';

const TURNS = 40;
const REPS = 3;

function syntheticWorkload(root: string): void {
  const dir = join(root, 'overhead');
  mkdirSync(join(dir, 'workspace'), { recursive: true });
  for (let i = 0; i < 5; i++) writeFileSync(join(dir, 'workspace', `f${i}.txt`), `file ${i}\n`.repeat(200));
  const turns = Array.from({ length: TURNS }, (_, i) => `  - prompt: "Read f${i % 5}.txt and summarise it (turn ${i})."`).join('\n');
  writeFileSync(join(dir, 'workload.yaml'), `name: overhead\ndescription: perf probe\nsuite_version: 1\nsignal_strength: marginal\nturns:\n${turns}\n`);
  const plan = (i: number, id: string, competent: boolean) =>
    `      - id: ${id}\n        competent: ${competent}\n        steps:\n          - tool_calls:\n              - tool: read_file\n                input: { path: f${i % 5}.txt }\n        final: "f${i % 5}.txt repeats one line 200 times."\n`;
  const sim = Array.from({ length: TURNS }, (_, i) => `  - difficulty: 0.3\n    plans:\n${plan(i, 'read', true)}${plan(i, 'read-too', false)}`).join('');
  writeFileSync(join(dir, 'sim.yaml'), `version: 1\nturns:\n${sim}`);
}

const root = mkdtempSync(join(tmpdir(), 'metis-perf-'));
try {
  syntheticWorkload(join(root, 'workloads'));
  const db = join(root, 'perf.db');
  const t0 = performance.now();
  const code = await main(['run', '--workloads-dir', join(root, 'workloads'), '--workload', 'overhead', '--seed-passes', String(REPS), '--db-path', db, '--quiet'], {
    out: () => {},
    err: (s) => process.stderr.write(`${s}\n`),
    isTTY: false,
    progress: () => {},
    env: { PATH: process.env.PATH },
    cwd: root,
  });
  const wallMs = performance.now() - t0;
  const conn = new Database(db, { readonly: true });
  const rows = conn.prepare("SELECT type, turn_id, timestamp_us FROM events WHERE type IN ('turn.started','turn.completed','tool.called','tool.completed','tool.failed','llm.call_completed') ORDER BY id").all() as { type: string; turn_id: string; timestamp_us: number }[];
  conn.close();
  const turns = new Map<string, { start: number; end: number; tools: number; calls: number; open: number }>();
  for (const r of rows) {
    const t = turns.get(r.turn_id) ?? { start: 0, end: 0, tools: 0, calls: 0, open: 0 };
    if (r.type === 'turn.started') t.start = r.timestamp_us;
    else if (r.type === 'turn.completed') t.end = r.timestamp_us;
    else if (r.type === 'tool.called') t.open = r.timestamp_us;
    else if (r.type === 'llm.call_completed') t.calls += 1;
    else t.tools += r.timestamp_us - t.open;
    turns.set(r.turn_id, t);
  }
  const perCallMs = [...turns.values()].map((t) => (t.end - t.start - t.tools) / t.calls / 1000).sort((a, b) => a - b);
  const q = (p: number) => Number(perCallMs[Math.min(perCallMs.length - 1, Math.floor(p * perCallMs.length))]!.toFixed(3));
  console.log(
    JSON.stringify({
      bench: 'harness_runtime_overhead_per_sim_call_ms',
      exit_code: code,
      turns: perCallMs.length,
      llm_calls: [...turns.values()].reduce((a, t) => a + t.calls, 0),
      median_ms: q(0.5),
      p95_ms: q(0.95),
      wall_ms_total: Math.round(wallMs),
      target_median_ms: 2,
      pass: q(0.5) <= 2,
    }),
  );
} finally {
  rmSync(root, { recursive: true, force: true });
}
