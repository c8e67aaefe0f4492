// Times analytics.savings({window}) over 1,000,000 llm.call_completed rows (target <= 1 s, spec §12). Prints JSON.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { createAnalytics, type EventSelector } from '../../runtime/analytics/index.ts';
import { createEventsFixture, llmCallCompletedPayload } from '../../runtime/analytics/events-fixture.ts';
import { loadPriceTable } from '../../runtime/pricing/index.ts';

const ROWS = Number(process.argv[2] ?? 1_000_000);
const SESSIONS = 1_000;
const MODELS = ['anthropic:claude-haiku-4-5', 'anthropic:claude-sonnet-4-6', 'openai:gpt-5-mini', 'openai:gpt-5'];
const REPEATS = 5;
const round = (ms: number) => Number(ms.toFixed(2));

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
  db.pragma('wal_checkpoint(TRUNCATE)'); // steady state: a live trace DB checkpoints as it goes

  // No ANALYZE: a trace DB fresh from a run has no planner statistics, so measure that case.
  const index0 = performance.now();
  const analytics = createAnalytics(db, loadPriceTable()); // builds the llm-usage index on first open
  const indexMs = performance.now() - index0;
  const time = (selector: EventSelector) => {
    let result = analytics.savings(selector, 'anthropic:claude-sonnet-4-6');
    const times: number[] = [];
    for (let r = 0; r < REPEATS; r++) {
      const t0 = performance.now();
      result = analytics.savings(selector, 'anthropic:claude-sonnet-4-6');
      times.push(performance.now() - t0);
    }
    times.sort((a, b) => a - b);
    return { median_ms: round(times[Math.floor(times.length / 2)]!), max_ms: round(times[times.length - 1]!), rows: result.rows_total, result };
  };
  const full = time({ window: { startUs, endUs: startUs + ROWS * 10 } });
  const small = time({ window: { startUs: startUs + ROWS * 5, endUs: startUs + ROWS * 5 + 10_000 } });
  const sessions = time({ sessions: Array.from({ length: 10 }, (_, i) => `s${i * 7}`) });
  db.close();
  console.log(
    JSON.stringify({
      bench: 'savings',
      rows: ROWS,
      repeats: REPEATS,
      fill_ms: Math.round(fillMs),
      index_build_ms: Math.round(indexMs),
      window_all: { median_ms: full.median_ms, max_ms: full.max_ms, rows: full.rows },
      window_1000_rows: { median_ms: small.median_ms, max_ms: small.max_ms, rows: small.rows },
      sessions_10: { median_ms: sessions.median_ms, max_ms: sessions.max_ms, rows: sessions.rows },
      target_ms: 1000,
      pass: full.median_ms <= 1000,
      savings_pct: full.result.savings_pct?.toFixed(2) ?? null,
    }),
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
