// Times analytics.savings({window}) over 1,000,000 llm.call_completed rows (target <= 1 s, spec §12). Prints JSON.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { createAnalytics } from '../../runtime/analytics/index.ts';
import { createEventsFixture, llmCallCompletedPayload } from '../../runtime/analytics/events-fixture.ts';
import { loadPriceTable } from '../../runtime/pricing/index.ts';

const ROWS = Number(process.argv[2] ?? 1_000_000);
const SESSIONS = 1_000;
const MODELS = ['anthropic:claude-haiku-4-5', 'anthropic:claude-sonnet-4-6', 'openai:gpt-5-mini', 'openai:gpt-5'];
const REPEATS = 5;

const dir = mkdtempSync(join(tmpdir(), 'perf-savings-'));
try {
  const db = new Database(join(dir, 'trace.db'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  createEventsFixture(db);
  const insertSession = db.prepare('INSERT INTO sessions (id) VALUES (?)');
  const insert = db.prepare(
    `INSERT INTO events (id, timestamp_us, session_id, turn_id, parent_event_id, type, actor, sensitivity, payload_json)
     VALUES (?, ?, ?, NULL, NULL, 'llm.call_completed', 'agent', 'pseudonymous', ?)`,
  );
  const startUs = 1_700_000_000_000_000;
  const fill0 = performance.now();
  db.transaction(() => {
    for (let s = 0; s < SESSIONS; s++) insertSession.run(`s${s}`);
    // Deterministic token counts (an LCG), so every run measures the same data.
    let x = 12345;
    const next = (m: number) => (x = (x * 1103515245 + 12345) % 2147483648) % m;
    for (let i = 0; i < ROWS; i++) {
      const payload = llmCallCompletedPayload({
        model: MODELS[i % MODELS.length]!,
        input_tokens: next(5000),
        output_tokens: next(2000),
        cached_input_tokens: next(20000),
        cache_creation_input_tokens: next(3000),
        cost_usd: '0.0123',
      });
      insert.run(`ev_${String(i).padStart(10, '0')}`, startUs + i * 10, `s${i % SESSIONS}`, JSON.stringify(payload));
    }
  })();
  const fillMs = performance.now() - fill0;
  db.exec('ANALYZE');

  const analytics = createAnalytics(db, loadPriceTable());
  const window = { startUs, endUs: startUs + ROWS * 10 };
  const times: number[] = [];
  let result = analytics.savings({ window }, 'anthropic:claude-sonnet-4-6');
  for (let r = 0; r < REPEATS; r++) {
    const t0 = performance.now();
    result = analytics.savings({ window }, 'anthropic:claude-sonnet-4-6');
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  const median = times[Math.floor(times.length / 2)]!;
  db.close();
  console.log(
    JSON.stringify({
      bench: 'savings_window',
      rows: ROWS,
      repeats: REPEATS,
      fill_ms: Math.round(fillMs),
      median_ms: Number(median.toFixed(1)),
      max_ms: Number(times[times.length - 1]!.toFixed(1)),
      target_ms: 1000,
      pass: median <= 1000,
      rows_total: result.rows_total,
      savings_pct: result.savings_pct?.toFixed(2) ?? null,
    }),
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
