/** Public API of the context assembler (context-assembler.md): system segments, prefix padding, skills and their budget. */
export { createContextAssembler, PERSONA_PATH, OPERATING_CONTEXT_PATH, type ContextAssembler, type ContextAssemblerOptions, type SystemSegments } from './context-assembler.ts';
export { assembleStableSystem, type StableSystem, type StableSystemInput } from './stable-system.ts';
export {
  padStablePrefix,
  paddingUnits,
  MIN_CACHEABLE_PREFIX_TOKENS,
  MAX_CACHEABLE_PREFIX_TOKENS,
  PREFIX_TARGET,
  type PaddingInput,
  type PaddingResult,
  type PrefixTarget,
} from './prefix-padding.ts';
export { readVolatileContext, VOLATILE_FILES } from './volatile-context.ts';
export { createSkill, skillHeading, type Skill, type SkillSource } from './skill.ts';
export { parseSkillFile, type SkillFrontMatter } from './skill-file.ts';
export { createSkillStore, loadSkillStore, WORKSPACE_SKILLS_DIR, type SkillStore } from './skill-store.ts';
export { renderDiscoveryIndex, PRELOADED_MARK } from './discovery-index.ts';
export {
  createSkillActivationRegistry,
  DEFAULT_ACTIVATION_LIMITS,
  MAX_EXPLICIT_ACTIVATIONS_PER_SESSION,
  WARN_CUMULATIVE_ACTIVATION_TOKENS,
  HARD_CAP_CUMULATIVE_ACTIVATION_TOKENS,
  type ActivationDecision,
  type ActivationLimits,
  type SkillActivationRegistry,
} from './activation-registry.ts';
export { emitSkillLoaded, type SkillLoadedEnvelope } from './skill-loaded-event.ts';
export { overlayTools } from './tool-overlay.ts';
