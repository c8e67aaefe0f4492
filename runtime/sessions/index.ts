export * from './session.ts';
export * from './turn-result.ts';
export type { SystemSegments } from '../context/index.ts';
export { runTurnLoop, sha256 } from './agent-loop.ts';
export type { TurnLoopDeps, TurnLoopInput } from './agent-loop.ts';
export { estimateTokens } from './estimate-tokens.ts';
export { createSpendGuard, SpendLimitError, type SpendGuard } from './spend-guard.ts';
