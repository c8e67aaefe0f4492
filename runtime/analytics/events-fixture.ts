import Database from 'better-sqlite3';
import { createIdFactory } from '../core/ids.ts';
import type { Actor, Sensitivity } from '../events/event.ts';
import type { Usage } from '../types/response.ts';
import { TRACE_SCHEMA_SQL } from '../trace/schema.ts';
import { createPriceTable } from '../pricing/price-table.ts';

/** The trace store's own schema (catalog §7.1): fixtures build exactly the tables the real store has. */
export const EVENTS_FIXTURE_DDL = TRACE_SCHEMA_SQL;

/** One event row to insert; unspecified envelope fields get plausible values. */
export interface FixtureEvent {
  type: string;
  session_id: string;
  payload: Record<string, unknown>;
  timestamp_us?: number;
  turn_id?: string | null;
  parent_event_id?: string | null;
  actor?: Actor;
  sensitivity?: Sensitivity;
}

/** A completed model call for the fixture: tokens default to 0. */
export interface FixtureLlmCall extends Partial<Usage> {
  session_id: string;
  model: string;
  timestamp_us?: number;
  cost_usd?: string;
}

/** Builds trace DBs for analytics tests: sessions are created on first use, timestamps advance by 1 µs. */
export interface EventsFixture {
  db: Database.Database;
  add(event: FixtureEvent): string;
  llmCall(call: FixtureLlmCall): string;
}

/** Creates the §7.1 schema in `db` (default: a fresh in-memory DB) and returns a builder over it. */
export function createEventsFixture(db: Database.Database = new Database(':memory:'), startUs = 1_000_000): EventsFixture {
  db.exec(EVENTS_FIXTURE_DDL);
  let clockUs = startUs;
  const newId = createIdFactory(() => Math.floor(clockUs / 1000));
  const insertSession = db.prepare('INSERT OR IGNORE INTO sessions (id) VALUES (?)');
  const insertEvent = db.prepare(
    `INSERT INTO events (id, timestamp_us, session_id, turn_id, parent_event_id, type, actor, sensitivity, payload_json)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const add = (e: FixtureEvent): string => {
    clockUs = e.timestamp_us ?? clockUs + 1;
    const id = newId('ev');
    insertSession.run(e.session_id);
    insertEvent.run(
      id,
      clockUs,
      e.session_id,
      e.turn_id ?? null,
      e.parent_event_id ?? null,
      e.type,
      e.actor ?? 'agent',
      e.sensitivity ?? 'pseudonymous',
      JSON.stringify(e.payload),
    );
    return id;
  };
  return {
    db,
    add,
    llmCall: (c) =>
      add({
        type: 'llm.call_completed',
        session_id: c.session_id,
        timestamp_us: c.timestamp_us,
        payload: llmCallCompletedPayload(c),
      }),
  };
}

/** A full catalog §6.3 `llm.call_completed` payload for the given model and tokens. */
export function llmCallCompletedPayload(c: Omit<FixtureLlmCall, 'session_id' | 'timestamp_us'>): Record<string, unknown> {
  return {
    model: c.model,
    provider: c.model.split(':')[0] ?? 'sim',
    input_tokens: c.input_tokens ?? 0,
    output_tokens: c.output_tokens ?? 0,
    cached_input_tokens: c.cached_input_tokens ?? 0,
    cache_creation_input_tokens: c.cache_creation_input_tokens ?? 0,
    cost_usd: c.cost_usd ?? '0',
    pricing_version: 'fixture',
    latency_ms: 100,
    stop_reason: 'end_turn',
    produced_tool_calls: 0,
    produced_thinking_blocks: 0,
  };
}

/** The analytics tests' price table (USD per million tokens): haiku, sonnet and gpt-5-mini priced; anything else unpriced. */
export const TEST_PRICES = createPriceTable({
  version: 'test-1',
  currency: 'USD',
  unit: 'per_million_tokens',
  models: {
    'anthropic:claude-haiku-4-5': { input: '1', output: '5', cache_read: '0.10', cache_write: '1.25' },
    'anthropic:claude-sonnet-4-6': { input: '3', output: '15', cache_read: '0.30', cache_write: '3.75' },
    'openai:gpt-5-mini': { input: '0.25', output: '2', cache_read: '0.025', cache_write: '0.25' },
  },
});

