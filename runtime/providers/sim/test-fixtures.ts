// Builders shared by the sim tests; not exported from index.ts.
import type { CanonicalRequest } from '../../types/request.ts';
import type { Message } from '../../types/content.ts';
import type { SimPlan, SimScript, SimTurn } from '../../../schemas/types/sim.ts';

/** A turn with a competent plan and one mistake, each calling `tool` once per step. */
export function simTurn(difficulty = 0.4, tool = 'echo', steps = 1): SimTurn {
  const plan = (id: string, competent: boolean, n: number): SimPlan => ({
    id,
    competent,
    weight: 1,
    steps: Array.from({ length: n }, (_, i) => ({ text: `${id} step ${i}`, tool_calls: [{ tool, input: { text: `${id}-${i}` } }] })),
    final: competent ? `Done: the ${tool} tool returned what was asked.` : `Done (${id}), though I skipped a check.`,
  });
  return { difficulty, plans: [plan('do-it-right', true, steps), plan('skip-check', false, steps + 1)] };
}

/** A script of `turns` identical turns. */
export function simScript(turns = 3, difficulty = 0.4): SimScript {
  return { version: 1, turns: Array.from({ length: turns }, () => simTurn(difficulty)) };
}

/** A request with sensible defaults. */
export function simRequest(model: string, messages: Message[], extra: Partial<CanonicalRequest> = {}): CanonicalRequest {
  return { model, system: 'You are careful.', system_volatile: null, tools: [], messages, temperature: 0, max_tokens: 4096, ...extra };
}

/** A user text message. */
export const userText = (text: string): Message => ({ role: 'user', content: [{ type: 'text', text }] });

/** Deterministic prose of roughly `approxTokens` o200k tokens (about one token per short word). */
export function prose(approxTokens: number, salt = ''): string {
  const words = ['alpha', 'river', 'module', 'cache', 'stable', 'prefix', 'token', 'garden', 'orbit', 'ledger'];
  const out: string[] = [];
  for (let i = 0; i < approxTokens; i++) out.push(words[(i * 7 + i / 10) % words.length | 0]!);
  return salt + out.join(' ');
}
