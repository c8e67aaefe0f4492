import { ToolError, type DelegateTier, type Tool } from '../tool.ts';

/**
 * `delegate {task, tier, context_mode?, context?, allowed_tools?}`: hands a self-contained sub-task to a
 * worker session whose model routing slot 5 picks from the tier (catalog §6.8). The worker's answer
 * is the tool result; a failed worker is a failed call, and the planner carries on.
 */
export function createDelegateTool(): Tool {
  return {
    name: 'delegate',
    description:
      'Delegate a self-contained sub-task to a worker agent in the same workspace. tier: fast (cheap model), balanced or deep. ' +
      'context_mode minimal sends only the task; explicit also sends the listed context. Returns the worker\'s final answer.',
    side_effects: 'execute',
    input_schema: {
      type: 'object',
      additionalProperties: false,
      required: ['task', 'tier'],
      properties: {
        task: { type: 'string', minLength: 1, description: 'What the worker must do, self-contained.' },
        tier: { type: 'string', enum: ['fast', 'balanced', 'deep'] },
        context_mode: { type: 'string', enum: ['minimal', 'explicit'], default: 'minimal' },
        context: { type: 'array', items: { type: 'string' }, default: [], description: 'For explicit mode: paths or notes the worker needs.' },
        allowed_tools: { type: 'array', items: { type: 'string' }, default: [], description: 'Tools the worker may use (empty: all but delegate).' },
      },
    },
    async run(input, ctx) {
      if (!ctx.delegate || !ctx.call) throw new ToolError('execution_error', 'delegation is not available here (a worker cannot delegate)');
      const outcome = await ctx.delegate({
        task: input.task as string,
        tier: input.tier as DelegateTier,
        context_mode: (input.context_mode as 'minimal' | 'explicit' | undefined) ?? 'minimal',
        context: (input.context as string[] | undefined) ?? [],
        allowed_tools: (input.allowed_tools as string[] | undefined) ?? [],
        tool_use_id: ctx.call.tool_use_id,
        llm_event_id: ctx.call.llm_event_id,
      });
      if (!outcome.ok) throw new ToolError('execution_error', `worker failed: ${outcome.output}`);
      return { content: outcome.output };
    },
  };
}
