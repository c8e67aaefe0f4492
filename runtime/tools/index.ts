/** Public API of the tools subsystem: the Tool contract, the built-in tools and the dispatcher (spec §7). */
export { ToolError, type SideEffect, type Tool, type ToolContext, type ToolErrorClass, type ToolOutput } from './tool.ts';
export {
  createToolDispatcher,
  type DispatchContext,
  type DispatchResult,
  type ToolDispatcher,
  type ToolDispatcherOptions,
} from './dispatcher.ts';
export { canonicalJson, inputDigest } from './input-hash.ts';
export * from './builtin/index.ts';
