export { assembleSystemPrompt, type SystemSegments } from './system-prompt.ts';
export { padStablePrefix, PREFIX_TARGET } from './prefix-padding.ts';
