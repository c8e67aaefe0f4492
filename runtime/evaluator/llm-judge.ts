import { Decimal } from 'decimal.js';
import type { Clock } from '../core/clock.ts';
import { costOf } from '../pricing/cost.ts';
import type { PriceTable } from '../pricing/rates.ts';
import { redactSecrets } from '../providers/redact-secrets.ts';
import type { Provider } from '../providers/provider.ts';
import { textOf } from '../types/content.ts';
import type { CanonicalResponse } from '../types/response.ts';
import { buildJudgeRequest, parseJudgeAnswer, type JudgeInput } from './judge-prompt.ts';

/** Why a judge produced no verdict. */
export type JudgeFailureMode = 'judge_output_invalid' | 'judge_call_failed';

/** One judge call: a verdict with its cost, or a failure (which may still have cost money). */
export type JudgeResult =
  | { ok: true; score: number; confidence: number; rationale: string; cost_usd: Decimal; pricing_version: string | null; latency_ms: number; model: string }
  | { ok: false; failure_mode: JudgeFailureMode; error_message: string; cost_usd: Decimal; pricing_version: string | null; latency_ms: number; model: string };

/** A model that grades a task's final response (harness-and-runtime.md §5). */
export interface LlmJudge {
  /** The judge model as configured (`llm_judge_model`). */
  readonly model: string;
  judge(input: JudgeInput, signal?: AbortSignal): Promise<JudgeResult>;
}

/** Options for createLlmJudge. */
export interface LlmJudgeOptions {
  /** Any provider serving `model`: a real adapter, or a fake in tests. */
  provider: Provider;
  /** Id or alias of the judge model. */
  model: string;
  prices: PriceTable;
  /** Measures the judge's latency. */
  clock: Clock;
}

/** Creates a judge that asks `model` once per subject and never throws for the model's or provider's faults. */
export function createLlmJudge(options: LlmJudgeOptions): LlmJudge {
  const { provider, model, prices, clock } = options;

  /** Exact cost of one response; unpriced models cost 0 with no pricing version, as in the agent loop. */
  const priced = (response: CanonicalResponse) => {
    const rates = prices.rates(response.model) ?? prices.rates(model);
    return rates ? { cost_usd: costOf(response.usage, rates), pricing_version: prices.version } : { cost_usd: new Decimal(0), pricing_version: null };
  };

  return {
    model,
    async judge(input, signal) {
      const t0 = clock.nowUs();
      const elapsedMs = () => Math.max(0, Math.round((clock.nowUs() - t0) / 1000));
      let response: CanonicalResponse;
      try {
        response = await provider.complete(buildJudgeRequest(model, input), signal);
      } catch (e) {
        // Adapters already redact their keys; this catches anything else that looks like one.
        const message = redactSecrets(String((e as Error)?.message ?? e));
        return { ok: false, failure_mode: 'judge_call_failed', error_message: message, cost_usd: new Decimal(0), pricing_version: null, latency_ms: elapsedMs(), model };
      }
      const latency_ms = elapsedMs();
      const cost = priced(response);
      const parsed = parseJudgeAnswer(textOf(response.content));
      if (!parsed.ok) return { ok: false, failure_mode: 'judge_output_invalid', error_message: parsed.error, ...cost, latency_ms, model: response.model };
      const { score, confidence, rationale } = parsed.verdict;
      return { ok: true, score, confidence, rationale, ...cost, latency_ms, model: response.model };
    },
  };
}

/** A judge, or why there is none (no `llm_judge_model`, no key, no provider for the model). */
export type JudgeAvailability = LlmJudge | { unavailable: string };

/** Options for resolveJudge. */
export interface ResolveJudgeOptions {
  /** The workload's `evaluate.llm_judge_model`; undefined means none was configured. */
  model: string | undefined;
  /** Builds the provider for the judge model; throws (e.g. ProviderError 'auth' for a missing key) when it cannot. */
  providerFor: (model: string) => Provider;
  prices: PriceTable;
  clock: Clock;
}

/** Resolves the judge for a workload, turning "cannot build one" into a reason the evaluator records. */
export function resolveJudge(options: ResolveJudgeOptions): JudgeAvailability {
  const { model } = options;
  if (!model) return { unavailable: 'no evaluate.llm_judge_model configured' };
  let provider: Provider;
  try {
    provider = options.providerFor(model);
  } catch (e) {
    return { unavailable: redactSecrets(String((e as Error)?.message ?? e)).slice(0, 500) };
  }
  return createLlmJudge({ provider, model, prices: options.prices, clock: options.clock });
}
