import type { BusEvent, EventBus, SkillLoadedPayload } from '../events/index.ts';
import type { Skill } from './skill.ts';

/** Where a skill.loaded hangs: session, turn (null at session start) and parent event. */
export interface SkillLoadedEnvelope {
  session_id: string;
  turn_id: string | null;
  /** session.created for pre-activation; the llm.call_completed that asked for skill_load otherwise. */
  parent_event_id: string | null;
}

/** Emits one skill.loaded (catalog §6.6) for `skill`'s block entering the context. */
export function emitSkillLoaded(
  bus: EventBus,
  envelope: SkillLoadedEnvelope,
  skill: Skill,
  load_reason: SkillLoadedPayload['load_reason'],
  triggered_by_tool_use_id: string | null,
): BusEvent<SkillLoadedPayload> {
  return bus.emit<SkillLoadedPayload>({
    ...envelope,
    type: 'skill.loaded',
    actor: 'system',
    payload: {
      skill_id: skill.name,
      skill_version: skill.version,
      load_reason,
      load_size_tokens: skill.size_tokens,
      source: skill.source,
      triggered_by_tool_use_id,
    },
  });
}
