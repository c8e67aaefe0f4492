import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Clock } from '../core/clock.ts';
import type { Logger } from '../core/logger.ts';
import type { EventBus } from '../events/index.ts';
import { createSkillLoadTool, createSkillSearchTool, createToolDispatcher, type DispatchContext, type ToolDispatcher } from '../tools/index.ts';
import { createSkillActivationRegistry, type ActivationLimits, type SkillActivationRegistry } from './activation-registry.ts';
import type { PrefixTarget } from './prefix-padding.ts';
import { emitSkillLoaded } from './skill-loaded-event.ts';
import { loadSkillStore, type SkillStore } from './skill-store.ts';
import { assembleStableSystem, type StableSystem } from './stable-system.ts';
import { overlayTools } from './tool-overlay.ts';
import { readVolatileContext } from './volatile-context.ts';

/** The two system segments of context-assembler.md §2. */
export interface SystemSegments {
  system: string | null;
  system_volatile: string | null;
}

/** The base persona of the stable segment. */
export const PERSONA_PATH = fileURLToPath(new URL('../data/prompts/agent-system.md', import.meta.url));
/** The byte-stable operating-context block, the fallback padding source (§5.1). */
export const OPERATING_CONTEXT_PATH = fileURLToPath(new URL('../data/prompts/operating-context.md', import.meta.url));

const prompts = new Map<string, string>();
/** Prompt files are read once per process: the same bytes every session, every turn. */
function promptFile(path: string): string {
  let text = prompts.get(path);
  if (text === undefined) prompts.set(path, (text = readFileSync(path, 'utf8')));
  return text;
}

/** What a session hands the assembler at creation. */
export interface ContextAssemblerOptions {
  workspaceRoot: string;
  session_id: string;
  /** session.created: parent of the pre-activation skill.loaded events. */
  parent_event_id: string;
  /** The run's shared dispatcher (file, shell and delegate tools). */
  tools: ToolDispatcher;
  /** Tools this session may use (delegated workers); null or absent for all. */
  allowedTools?: ReadonlySet<string> | null;
  bus: EventBus;
  logger: Logger;
  clock: Clock;
  /** Replaces the default persona (agent-system.md); padding still applies (§5.1 "custom system_prompt"). */
  persona?: string;
  /** Replaces the §5.1 band (4,500 – 5,500). */
  target?: PrefixTarget;
  /** Replaces the §5.2.4 caps. */
  limits?: Partial<ActivationLimits>;
  /** Skills to use instead of reading `<workspace>/.metis/skills/`. */
  skills?: SkillStore;
}

/** A session's context: its tools, its stable segment (fixed at creation) and its skill budget. */
export interface ContextAssembler {
  /** The shared tools, plus skill_load and skill_search when the workspace has skills. */
  readonly tools: ToolDispatcher;
  readonly stable: StableSystem;
  readonly skills: SkillStore;
  readonly registry: SkillActivationRegistry;
  /** The segments for the next request: the stable one, and the volatile files as they are now. */
  segments(): SystemSegments;
}

/**
 * Builds a session's context (context-assembler.md §2, §5): reads the workspace's skills, offers the
 * skill tools when there are any, assembles and pads the stable segment once, and emits one
 * skill.loaded (`always`) per body the padding pre-activated, right after session.created.
 */
export function createContextAssembler(o: ContextAssemblerOptions): ContextAssembler {
  const skills = o.skills ?? loadSkillStore({ workspaceRoot: o.workspaceRoot, logger: o.logger });
  const registry = createSkillActivationRegistry({ logger: o.logger, session_id: o.session_id, ...(o.limits ? { limits: o.limits } : {}) });
  let tools = o.tools;
  if (skills.skills.length > 0) {
    let current: DispatchContext | null = null;
    const skillTools = [
      createSkillLoadTool({
        skills,
        registry,
        onLoaded(skill, call) {
          const envelope = { session_id: current?.session_id ?? o.session_id, turn_id: current?.turn_id ?? null, parent_event_id: call?.llm_event_id ?? null };
          emitSkillLoaded(o.bus, envelope, skill, 'on_demand', call?.tool_use_id ?? null);
        },
      }),
      createSkillSearchTool({ skills, registry }),
    ];
    const own = createToolDispatcher({ tools: skillTools, bus: o.bus, logger: o.logger, clock: o.clock });
    // The agent loop dispatches one call at a time, so the latest context is the running call's.
    tools = overlayTools(o.tools, own, (ctx) => (current = ctx));
  }
  const offered = o.allowedTools ? tools.specs().filter((t) => o.allowedTools!.has(t.name)) : tools.specs();
  const stable = assembleStableSystem({
    persona: o.persona ?? promptFile(PERSONA_PATH),
    tools: offered,
    skills: offered.some((t) => t.name === 'skill_load') ? skills.skills : [],
    operatingContext: promptFile(OPERATING_CONTEXT_PATH),
    ...(o.target ? { target: o.target } : {}),
  });
  for (const skill of stable.preloaded) {
    registry.preactivate(skill.name);
    emitSkillLoaded(o.bus, { session_id: o.session_id, turn_id: null, parent_event_id: o.parent_event_id }, skill, 'always', null);
  }
  return {
    tools,
    stable,
    skills,
    registry,
    segments: () => ({ system: stable.text, system_volatile: readVolatileContext(o.workspaceRoot) }),
  };
}
