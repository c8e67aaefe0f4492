// Which trace session, turn and llm.call_started a provider request belongs to. The agent loop puts it
// in the request's metadata (local bookkeeping, never sent on the wire, never part of a cache or
// cassette key), so a decorator behind the provider call — the semantic cache — can attach its own
// events to the session whose call caused them, without holding session state itself.
import type { CanonicalRequest } from '../types/request.ts';

/** Where a provider call sits in the trace. */
export interface CallContext {
  session_id: string;
  turn_id: string;
  /** The llm.call_started event of this call: the parent of whatever happens behind the provider. */
  call_event_id: string;
}

const SESSION = 'trace_session_id';
const TURN = 'trace_turn_id';
const CALL = 'trace_call_event_id';

/** The metadata entries that carry `ctx` on a request. */
export function callContextMetadata(ctx: CallContext): Record<string, string> {
  return { [SESSION]: ctx.session_id, [TURN]: ctx.turn_id, [CALL]: ctx.call_event_id };
}

/** The call context a request carries, or null when it was made outside a traced session. */
export function callContextOf(request: CanonicalRequest): CallContext | null {
  const m = request.metadata;
  const session_id = m?.[SESSION];
  const turn_id = m?.[TURN];
  const call_event_id = m?.[CALL];
  return session_id && turn_id && call_event_id ? { session_id, turn_id, call_event_id } : null;
}
