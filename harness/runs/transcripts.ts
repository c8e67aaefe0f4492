import type { Database } from 'better-sqlite3';
import type { ContentBlock, Message } from '../../runtime/types/content.ts';

/**
 * What each session of a rep said and did, kept so `bench view` can show a rep in full (the events hold
 * hashes and sizes of tool inputs and outputs, not their text). Capped per block so a huge tool result or
 * reply cannot bloat the trace DB.
 */
export interface SessionTranscript {
  session_id: string;
  messages: Message[];
}

/** The most characters kept of one text, tool input or tool result. */
export const TRANSCRIPT_BLOCK_CHARS = 16_000;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS session_transcripts (
  session_id TEXT PRIMARY KEY,
  workload_run_id TEXT NOT NULL,
  messages_json TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS idx_session_transcripts_wrun ON session_transcripts(workload_run_id);
`;

function cap(text: string): string {
  return text.length <= TRANSCRIPT_BLOCK_CHARS ? text : `${text.slice(0, TRANSCRIPT_BLOCK_CHARS)}\n[… ${text.length - TRANSCRIPT_BLOCK_CHARS} more characters not kept]`;
}

function capBlock(b: ContentBlock): ContentBlock {
  switch (b.type) {
    case 'text':
      return { type: 'text', text: cap(b.text) };
    case 'tool_result':
      return { ...b, content: cap(b.content) };
    case 'tool_use': {
      const json = JSON.stringify(b.input);
      return json.length <= TRANSCRIPT_BLOCK_CHARS ? b : { ...b, input: { truncated_json: cap(json) } };
    }
  }
}

/** A transcript with every block capped at TRANSCRIPT_BLOCK_CHARS. */
export function capTranscript(t: SessionTranscript): SessionTranscript {
  return { session_id: t.session_id, messages: t.messages.map((m) => ({ role: m.role, content: m.content.map(capBlock) })) };
}

/** Creates the table (writers only). */
export function ensureTranscriptTable(db: Database): void {
  db.exec(SCHEMA);
}

/** Stores a rep's session transcripts, capped. */
export function saveTranscripts(db: Database, workloadRunId: string, transcripts: readonly SessionTranscript[]): void {
  const insert = db.prepare('INSERT OR REPLACE INTO session_transcripts (session_id, workload_run_id, messages_json) VALUES (?, ?, ?)');
  for (const t of transcripts) insert.run(t.session_id, workloadRunId, JSON.stringify(capTranscript(t).messages));
}

/** The stored transcripts of these sessions, in the order asked; sessions without one (older DBs) are left out. */
export function loadTranscripts(db: Database, sessionIds: readonly string[]): SessionTranscript[] {
  const exists = db.prepare("SELECT 1 FROM sqlite_master WHERE type='table' AND name='session_transcripts'").get();
  if (!exists) return [];
  const get = db.prepare('SELECT messages_json FROM session_transcripts WHERE session_id = ?');
  return sessionIds.flatMap((id) => {
    const row = get.get(id) as { messages_json: string } | undefined;
    return row ? [{ session_id: id, messages: JSON.parse(row.messages_json) as Message[] }] : [];
  });
}
