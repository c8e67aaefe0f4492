// Test fixtures for the judge: a scripted Provider and a tiny price table. Imported by tests only.
import { createVirtualClock, type VirtualClock } from '../core/clock.ts';
import { createPriceTable } from '../pricing/price-table.ts';
import type { Provider } from '../providers/provider.ts';
import type { CanonicalRequest } from '../types/request.ts';
import type { CanonicalResponse, Usage } from '../types/response.ts';

/** One scripted judge reply: answer text with usage, or an error to throw. */
export type FakeReply = { text: string; usage?: Usage; model?: string } | Error;

/** A Provider that plays `replies` in order, advancing `clock` by `latencyMs` per call, and records requests. */
export function createFakeJudgeProvider(replies: FakeReply[], clock: VirtualClock = createVirtualClock(1_000_000), latencyMs = 250) {
  const requests: CanonicalRequest[] = [];
  const provider: Provider = {
    name: 'fake',
    capabilities: () => ({ tools: false, vision: false, prompt_caching: false, system_prompt: true, context_window: 200_000 }),
    async complete(request): Promise<CanonicalResponse> {
      requests.push(request);
      clock.advanceUs(latencyMs * 1000);
      const reply = replies.shift();
      if (!reply) throw new Error('fake judge provider: no reply scripted');
      if (reply instanceof Error) throw reply;
      return {
        model: reply.model ?? 'anthropic:claude-haiku-4-5',
        content: [{ type: 'text', text: reply.text }],
        stop_reason: 'end_turn',
        usage: reply.usage ?? { input_tokens: 1000, output_tokens: 100, cached_input_tokens: 0, cache_creation_input_tokens: 0 },
        latency_ms: latencyMs,
        request_id: `fake_${requests.length}`,
      };
    },
  };
  return { provider, requests, clock };
}

/** Haiku at $1 in / $5 out per million tokens, version `test-prices`. */
export const TEST_PRICES = createPriceTable({
  version: 'test-prices',
  currency: 'USD',
  unit: 'per_million_tokens',
  models: { 'anthropic:claude-haiku-4-5': { input: '1', output: '5', cache_read: '0.10', cache_write: '1.25' } },
});

/** A judge answer as JSON text. */
export const answer = (score: number, confidence: number, rationale = 'The hidden tests pass and the fix is minimal.'): string => JSON.stringify({ score, confidence, rationale });
