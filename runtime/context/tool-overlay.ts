import type { DispatchContext, ToolDispatcher } from '../tools/index.ts';
import type { ToolSpec } from '../types/request.ts';

const byName = (a: ToolSpec, b: ToolSpec) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/**
 * One dispatcher over the run's shared tools plus a session's own (the skill tools): specs merged
 * and sorted by name, as the shared dispatcher sorts its own, so the tools prefix stays byte-stable;
 * each call goes to whichever dispatcher holds the tool. `onOwnCall` sees the context of a call to
 * the session's tools before it runs.
 */
export function overlayTools(shared: ToolDispatcher, own: ToolDispatcher, onOwnCall?: (ctx: DispatchContext) => void): ToolDispatcher {
  const ownNames = new Set(own.specs().map((s) => s.name));
  const clash = shared.specs().find((s) => ownNames.has(s.name));
  if (clash) throw new Error(`duplicate tool name '${clash.name}'`);
  const merged = [...shared.specs(), ...own.specs()].sort(byName);
  return {
    specs: () => merged.map((s) => ({ ...s })),
    dispatch(call, ctx) {
      if (!ownNames.has(call.name)) return shared.dispatch(call, ctx);
      onOwnCall?.(ctx);
      return own.dispatch(call, ctx);
    },
  };
}
