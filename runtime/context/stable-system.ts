import { estimateTokens } from '../sessions/estimate-tokens.ts';
import type { ToolSpec } from '../types/request.ts';
import { renderDiscoveryIndex } from './discovery-index.ts';
import { padStablePrefix, paddingUnits, PREFIX_TARGET, type PrefixTarget } from './prefix-padding.ts';
import type { Skill } from './skill.ts';

/** Inputs of the stable system segment; all of them fixed for a session. */
export interface StableSystemInput {
  /** The base persona (runtime/data/prompts/agent-system.md, or a caller's own prompt). */
  persona: string;
  /** The tools the session offers, as sent (they are part of the cached prefix). */
  tools: readonly ToolSpec[];
  /** Skills to index, name-ascending; empty when the skill tools are not offered. */
  skills: readonly Skill[];
  /** The byte-stable operating-context block, the fallback padding source. */
  operatingContext: string;
  target?: PrefixTarget;
}

/** The stable system segment and what went into it. */
export interface StableSystem {
  text: string;
  /** Skills whose bodies were inlined as padding (pre-activated, `load_reason: "always"`). */
  preloaded: readonly Skill[];
  /** Paragraph units of the operating-context block that were appended. */
  operatingContextUnits: number;
  /** Heuristic tokens of tools + `text` (the cacheable prefix). */
  prefixTokens: number;
}

/**
 * Assembles the stable system segment (context-assembler.md §2, §5.1, §5.2.2): persona, the skill
 * discovery index, then — only when tools + persona + index estimate below the minimum — skill
 * bodies (name order, marked `[preloaded]` in the index) and the operating-context block cut at a
 * paragraph, up toward the maximum. Pure: equal inputs give a byte-identical segment.
 */
export function assembleStableSystem(input: StableSystemInput): StableSystem {
  const tools = [...input.tools];
  const units = paddingUnits(input.operatingContext);
  const compose = (bodies: readonly Skill[], ops: readonly string[]): string => {
    const parts = [input.persona.trimEnd()];
    if (input.skills.length) parts.push(renderDiscoveryIndex(input.skills, new Set(bodies.map((s) => s.name))));
    for (const s of bodies) parts.push(s.block);
    if (ops.length) parts.push(ops.join('\n\n'));
    return parts.join('\n\n');
  };
  const measure = (system: string) => estimateTokens({ system, system_volatile: null, tools, messages: [] });
  const r = padStablePrefix({ compose, measure, blocks: input.skills, units, target: input.target ?? PREFIX_TARGET });
  return { text: r.system, preloaded: r.blocks, operatingContextUnits: r.unitCount, prefixTokens: r.tokens };
}
