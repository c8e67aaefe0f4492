import type { VirtualClock } from '../../core/clock.ts';
import { UnknownModelError, type ModelProfile, type ModelRegistry } from '../../models/model-profile.ts';
import type { ContentBlock } from '../../types/content.ts';
import type { CanonicalRequest } from '../../types/request.ts';
import type { CanonicalResponse } from '../../types/response.ts';
import type { SimScript } from '../../../schemas/types/sim.ts';
import { ProviderError, type Provider, type ProviderCapabilities } from '../provider.ts';
import { simulatedLatencyUs } from './latency.ts';
import { choosePlan } from './plan-choice.ts';
import { prngFor } from './prng.ts';
import { ulidFromPrng } from './prng-ulid.ts';
import { createPromptCache } from './prompt-cache.ts';
import { blockText, serializeRequest } from './request-segments.ts';
import { createSegmentMeter } from './segment-meter.ts';
import { createTiktokenCounter, type TokenCounter } from './token-counter.ts';
import { turnPosition } from './turn-position.ts';

/** Which run the simulated provider is playing; with the turn and model it seeds the PRNG. */
export interface SimRunContext {
  seed: number;
  workload: string;
  pass: string;
  rep: number;
}

/** Options for createSimProvider. */
export interface SimProviderOptions {
  /** The workload's sim.yaml, as returned by loadSimScript. */
  script: SimScript;
  registry: ModelRegistry;
  context: SimRunContext;
  /** Advanced by each call's simulated latency; cache TTLs run on it. */
  clock: VirtualClock;
  /** Defaults to o200k_base via js-tiktoken. */
  tokenizer?: TokenCounter;
}

/**
 * The simulated provider (harness-and-runtime.md §3): plays the scripted plans of a workload as
 * the requested model, choosing the competent plan with the model's odds, and computes usage,
 * prompt-cache effects and latency from the real request. Stateless per call except for the
 * prompt cache and the tokenizer memo, so the same flags give the same run.
 */
export function createSimProvider(options: SimProviderOptions): Provider {
  const { script, registry, context, clock } = options;
  const meter = createSegmentMeter(options.tokenizer ?? createTiktokenCounter());
  const cache = createPromptCache();

  const profileOf = (model: string): ModelProfile => {
    try {
      return registry.resolve(model);
    } catch (e) {
      if (e instanceof UnknownModelError) throw new ProviderError(`sim: ${e.message}`, 'invalid_request');
      throw e;
    }
  };

  /**
   * A delegated worker (request metadata `session_role: worker`) plays the `workers` script whose
   * `match` its task contains; everyone else plays the workload's turns.
   */
  const scriptFor = (request: CanonicalRequest): { turns: SimScript['turns']; key: string } => {
    if (request.metadata?.session_role !== 'worker') return { turns: script.turns, key: context.workload };
    const task = request.messages.find((m) => m.role === 'user')?.content.find((b) => b.type === 'text');
    const text = task?.type === 'text' ? task.text : '';
    const worker = (script.workers ?? []).find((w) => text.includes(w.match));
    if (!worker) throw new ProviderError(`sim: workload '${context.workload}' has no worker script matching the delegated task "${text.slice(0, 60)}"`, 'invalid_request');
    return { turns: worker.turns, key: `${context.workload}#worker:${worker.match}` };
  };

  return {
    name: 'sim',

    capabilities(model): ProviderCapabilities {
      return { ...profileOf(model).capabilities };
    },

    async complete(request: CanonicalRequest, signal?: AbortSignal): Promise<CanonicalResponse> {
      if (signal?.aborted) throw new ProviderError('sim: request cancelled', 'cancelled');
      const profile = profileOf(request.model);
      const position = turnPosition(request.messages);
      if (!position) throw new ProviderError('sim: the request has no user message with text', 'invalid_request');
      if (request.messages[request.messages.length - 1]!.role !== 'user') {
        throw new ProviderError('sim: the last message must be from the user', 'invalid_request');
      }
      const { turns, key } = scriptFor(request);
      const simTurn = turns[position.turn];
      if (!simTurn) {
        throw new ProviderError(
          `sim: workload '${key}' has no script for turn ${position.turn + 1} (sim.yaml has ${turns.length} turns)`,
          'invalid_request',
        );
      }

      // Recomputed from scratch at every step: no per-session state, so replaying a step replays it exactly.
      const prng = prngFor({ ...context, workload: key, turn: position.turn, model: profile.id });
      const { plan } = choosePlan(simTurn, profile.sim.competence, request.temperature, prng);
      // A model offered no tools cannot call any: it answers with the plan's final text.
      const steps = request.tools.length > 0 ? plan.steps : [];
      // If the plan changed mid-turn (another model took over), a step past its end plays the final text.
      const stepIndex = Math.min(position.step, steps.length);
      let content: ContentBlock[] = [];
      for (let j = 0; j <= stepIndex && j < steps.length; j++) {
        // Ids of earlier steps are drawn too, so each step's ids sit at a fixed place in the stream.
        const ids = steps[j]!.tool_calls.map(() => `tu_${ulidFromPrng(prng)}`);
        if (j < stepIndex) continue;
        const step = steps[j]!;
        content = [
          ...(step.text ? [{ type: 'text' as const, text: step.text }] : []),
          ...step.tool_calls.map((c, i) => ({ type: 'tool_use' as const, id: ids[i]!, name: c.tool, input: structuredClone(c.input) })),
        ];
      }
      const final = stepIndex === steps.length;
      if (final) content = [{ type: 'text', text: plan.final }];
      const requestId = `sim_${ulidFromPrng(prng)}`;

      // OpenAI-compatible servers take the OpenAI wire order.
      const wire = serializeRequest(request, profile.provider === 'anthropic' ? 'anthropic' : 'openai');
      const measured = wire.segments.map((s) => meter.measure(s));
      const total = measured.reduce((sum, m) => sum + m.tokens, 0);
      if (total > profile.capabilities.context_window) {
        throw new ProviderError(`sim: request is ${total} tokens; ${profile.id} has a ${profile.capabilities.context_window}-token window`, 'context_overflow');
      }
      const now = clock.nowUs();
      const min = profile.min_cacheable_prefix_tokens;
      const cacheUsage =
        profile.provider === 'anthropic' ? cache.anthropic(profile.id, measured, wire.breakpoints, min, now) : cache.openai(profile.id, measured, min, now);
      const output = content.reduce((sum, b) => sum + meter.measure({ kind: `assistant.${b.type}`, text: blockText(b) }).tokens, 0);
      const input = total - cacheUsage.cached_input_tokens - cacheUsage.cache_creation_input_tokens;

      const latencyUs = simulatedLatencyUs(profile.sim, input + cacheUsage.cache_creation_input_tokens, output);
      clock.advanceUs(latencyUs);
      return {
        model: profile.id,
        content,
        stop_reason: final ? 'end_turn' : 'tool_use',
        usage: { input_tokens: input, output_tokens: output, ...cacheUsage },
        latency_ms: latencyUs / 1000,
        request_id: requestId,
      };
    },
  };
}
