import type { Database } from 'better-sqlite3';
import type { Message } from '../../runtime/types/content.ts';
import type { WorkloadRunRecord } from '../runs/run-store.ts';
import { loadTranscripts } from '../runs/transcripts.ts';

/** One tool call of a turn: what the model asked, what came back, and how the dispatcher judged it. */
export interface ToolCallView {
  tool_use_id: string;
  name: string;
  input: unknown;
  result: string | null;
  is_error: boolean;
  side_effects: string | null;
  error_class: string | null;
  latency_ms: number | null;
}

/** One LLM call: model, tokens and its cost as the trace recorded them. */
export interface LlmCallView {
  model: string;
  input_tokens: number;
  output_tokens: number;
  cached_input_tokens: number;
  cache_creation_input_tokens: number;
  cost_usd: string;
  latency_ms: number;
  stop_reason: string;
  /** The semantic cache tier that answered instead of a model (`--cache on`); null when a model did. */
  cache_tier: string | null;
}

/** One turn of one session, in the order it happened. */
export interface TurnView {
  turn_id: string;
  index: number;
  user: string | null;
  chosen_model: string | null;
  /** route.decided's chain: every policy slot with its verdict and reason. */
  chain: Record<string, unknown>[];
  /** pattern.matched when slot 4 decided: cluster size, confidence, the K-NN's per-model scores are in the chain. */
  pattern: Record<string, unknown> | null;
  llm_calls: LlmCallView[];
  tool_calls: ToolCallView[];
  assistant_text: string[];
  cost_usd: string | null;
}

/** A session of the rep (the main one first, then workers), with its turns. */
export interface SessionView {
  session_id: string;
  parent_session_id: string | null;
  turns: TurnView[];
}

/** Everything `bench view` shows of one rep. */
export interface RepDetail {
  record: WorkloadRunRecord;
  sessions: SessionView[];
  verdict: Record<string, unknown> | null;
  has_transcript: boolean;
}

interface EventRow {
  session_id: string;
  turn_id: string | null;
  type: string;
  payload_json: string;
}

function num(v: unknown): number {
  return typeof v === 'number' ? v : 0;
}

/** Tool inputs and results from the transcript, by tool_use id, and the assistant's text per turn. */
function indexTranscript(messages: readonly Message[]): { inputs: Map<string, { name: string; input: unknown }>; results: Map<string, { content: string; is_error: boolean }>; texts: string[][] } {
  const inputs = new Map<string, { name: string; input: unknown }>();
  const results = new Map<string, { content: string; is_error: boolean }>();
  const texts: string[][] = [];
  let turn = -1;
  for (const m of messages) {
    // A user message made only of tool results continues the turn; any other user message starts one.
    const isContinuation = m.role === 'user' && m.content.length > 0 && m.content.every((b) => b.type === 'tool_result');
    if (m.role === 'user' && !isContinuation) {
      turn += 1;
      texts[turn] = [];
    }
    for (const b of m.content) {
      if (b.type === 'tool_use') inputs.set(b.id, { name: b.name, input: b.input });
      else if (b.type === 'tool_result') results.set(b.tool_use_id, { content: b.content, is_error: b.is_error });
      else if (m.role === 'assistant' && turn >= 0) texts[turn]!.push(b.text);
    }
  }
  return { inputs, results, texts };
}

function sessionView(db: Database, sessionId: string, messages: readonly Message[] | null): SessionView {
  const rows = db.prepare('SELECT session_id, turn_id, type, payload_json FROM events WHERE session_id = ? ORDER BY id').all(sessionId) as EventRow[];
  const transcript = indexTranscript(messages ?? []);
  const turns = new Map<string, TurnView>();
  const tools = new Map<string, ToolCallView>();
  const parentRow = db.prepare('SELECT parent_session_id FROM sessions WHERE id = ?').get(sessionId) as { parent_session_id: string | null } | undefined;
  for (const row of rows) {
    const p = JSON.parse(row.payload_json) as Record<string, unknown>;
    if (!row.turn_id) continue;
    let turn = turns.get(row.turn_id);
    if (!turn) {
      turn = { turn_id: row.turn_id, index: turns.size, user: null, chosen_model: null, chain: [], pattern: null, llm_calls: [], tool_calls: [], assistant_text: transcript.texts[turns.size] ?? [], cost_usd: null };
      turns.set(row.turn_id, turn);
    }
    switch (row.type) {
      case 'turn.started':
        turn.user = typeof p.user_message_text_redacted === 'string' ? p.user_message_text_redacted : null;
        break;
      case 'route.decided':
        turn.chosen_model = String(p.chosen_model);
        turn.chain = (p.chain as Record<string, unknown>[]) ?? [];
        break;
      case 'pattern.matched':
        turn.pattern = p;
        break;
      case 'llm.call_completed':
        turn.llm_calls.push({
          model: String(p.model),
          input_tokens: num(p.input_tokens),
          output_tokens: num(p.output_tokens),
          cached_input_tokens: num(p.cached_input_tokens),
          cache_creation_input_tokens: num(p.cache_creation_input_tokens),
          cost_usd: String(p.cost_usd),
          latency_ms: num(p.latency_ms),
          stop_reason: String(p.stop_reason),
          cache_tier: typeof p.cache_tier === 'string' ? p.cache_tier : null,
        });
        break;
      case 'tool.called': {
        const id = String(p.tool_use_id);
        const asked = transcript.inputs.get(id);
        const got = transcript.results.get(id);
        const view: ToolCallView = { tool_use_id: id, name: String(p.tool_name), input: asked?.input ?? null, result: got?.content ?? null, is_error: got?.is_error ?? false, side_effects: String(p.side_effects), error_class: null, latency_ms: null };
        tools.set(id, view);
        turn.tool_calls.push(view);
        break;
      }
      case 'tool.input_invalid':
        // The event carries no tool_use id; the refusal text reached the model as a tool result.
        turn.tool_calls.push({ tool_use_id: '', name: String(p.tool_name ?? '?'), input: null, result: JSON.stringify(p.validation_errors ?? null), is_error: true, side_effects: null, error_class: 'input_invalid', latency_ms: null });
        break;
      case 'tool.completed': {
        const t = tools.get(String(p.tool_use_id));
        if (t) t.latency_ms = num(p.latency_ms);
        break;
      }
      case 'tool.failed': {
        const t = tools.get(String(p.tool_use_id));
        if (t) {
          t.latency_ms = num(p.latency_ms);
          t.error_class = String(p.error_class);
          t.is_error = true;
        }
        break;
      }
      case 'turn.completed':
        turn.cost_usd = String(p.total_cost_usd);
        break;
    }
  }
  return { session_id: sessionId, parent_session_id: parentRow?.parent_session_id ?? null, turns: [...turns.values()] };
}

/** The workload-level verdict of the rep (eval.completed on the workload subject), when the trace has it. */
function workloadVerdict(db: Database, sessionId: string): Record<string, unknown> | null {
  const rows = db.prepare("SELECT payload_json FROM events WHERE session_id = ? AND type = 'eval.completed' ORDER BY id").all(sessionId) as { payload_json: string }[];
  const verdicts = rows.map((r) => JSON.parse(r.payload_json) as Record<string, unknown>);
  return verdicts.find((v) => v.subject_kind === 'workload') ?? null;
}

/** One rep in full, read from the trace DB (events + the harness's tables); reads only. */
export function repDetail(db: Database, record: WorkloadRunRecord): RepDetail {
  const transcripts = loadTranscripts(db, record.session_ids);
  const bySession = new Map(transcripts.map((t) => [t.session_id, t.messages]));
  return {
    record,
    sessions: record.session_ids.map((id) => sessionView(db, id, bySession.get(id) ?? null)),
    verdict: record.session_ids[0] ? workloadVerdict(db, record.session_ids[0]) : null,
    has_transcript: transcripts.length > 0,
  };
}
