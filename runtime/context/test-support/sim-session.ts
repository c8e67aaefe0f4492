// Fixture builders for context tests: a Session on the simulated provider with the real dispatcher
// and a strict in-memory bus (every payload is checked against the catalog as it is emitted).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createIdFactory } from '../../core/ids.ts';
import { createVirtualClock } from '../../core/clock.ts';
import { createMemoryLogger } from '../../core/logger.ts';
import { createEventBus, type BusEvent } from '../../events/index.ts';
import { loadModelRegistry } from '../../models/index.ts';
import { loadPriceTable } from '../../pricing/index.ts';
import { createSimProvider } from '../../providers/sim/index.ts';
import type { Provider } from '../../providers/provider.ts';
import { createRouter, defaultRoutingConfig } from '../../routing/index.ts';
import { Session } from '../../sessions/index.ts';
import { builtinTools, createToolDispatcher } from '../../tools/index.ts';
import type { CanonicalRequest } from '../../types/request.ts';
import type { CanonicalResponse } from '../../types/response.ts';
import type { SimScript } from '../../../schemas/types/sim.ts';

/** Tool calls the model makes in one turn: one inner array per assistant step. */
export type ScriptedTurn = { tool: string; input: Record<string, unknown> }[][];

/** A script whose every plan does the same thing, so the sim's plan draw cannot change the run. */
export function fixedScript(turns: readonly ScriptedTurn[]): SimScript {
  return {
    version: 1,
    turns: turns.map((steps, t) => {
      const plan = (id: string, competent: boolean) => ({
        id,
        competent,
        weight: 1,
        steps: steps.map((calls) => ({ tool_calls: calls.map((c) => ({ tool: c.tool, input: structuredClone(c.input) })) })),
        final: `Turn ${t + 1} done.`,
      });
      return { difficulty: 0.1, plans: [plan('does-it', true), plan('does-it-too', false)] };
    }),
  };
}

/** A temp workspace with `files` (workspace-relative path → text). */
export function createWorkspace(files: Record<string, string> = {}): { root: string; write(rel: string, text: string): void; cleanup(): void } {
  const root = mkdtempSync(join(tmpdir(), 'metis-context-'));
  const write = (rel: string, text: string) => {
    mkdirSync(dirname(join(root, rel)), { recursive: true });
    writeFileSync(join(root, rel), text);
  };
  for (const [rel, text] of Object.entries(files)) write(rel, text);
  return { root, write, cleanup: () => rmSync(root, { recursive: true, force: true }) };
}

/** SKILL.md text with front matter. */
export function skillMarkdown(name: string, description: string, body: string): string {
  return `---\nname: ${name}\ndescription: ${description}\n---\n\n${body}\n`;
}

/** What a sim session test inspects. */
export interface SimSessionFixture {
  session: Session;
  /** Every request the provider received, deep-copied when sent. */
  requests: CanonicalRequest[];
  responses: CanonicalResponse[];
  logger: ReturnType<typeof createMemoryLogger>;
  /** Drains the bus and returns every event emitted so far, in order. */
  events(): Promise<BusEvent[]>;
}

/** A Session in `workspaceRoot` playing `turns` on the sim as `model` (default haiku 4.5). */
export function createSimSession(o: { workspaceRoot: string; turns: readonly ScriptedTurn[]; model?: string }): SimSessionFixture {
  const model = o.model ?? 'anthropic:claude-haiku-4-5';
  const clock = createVirtualClock(0);
  const logger = createMemoryLogger();
  const bus = createEventBus({ mode: 'strict', logger, clock });
  const seen: BusEvent[] = [];
  bus.subscribe({ name: 'test-collector', filter: {}, handler: (e) => void seen.push(e) });
  const registry = loadModelRegistry();
  const sim = createSimProvider({ script: fixedScript(o.turns), registry, context: { seed: 0, workload: 'context-test', pass: 'single', rep: 0 }, clock });
  const requests: CanonicalRequest[] = [];
  const responses: CanonicalResponse[] = [];
  const provider: Provider = {
    name: sim.name,
    capabilities: (m) => sim.capabilities(m),
    async complete(request, signal) {
      requests.push(structuredClone(request));
      const r = await sim.complete(request, signal);
      responses.push(r);
      return r;
    },
  };
  const tools = createToolDispatcher({ tools: builtinTools(), bus, logger, clock });
  const router = createRouter({ bus, registry, global: { ...defaultRoutingConfig(), default_model: model } });
  const session = new Session(
    { bus, provider, tools, prices: loadPriceTable(), clock, router, ids: createIdFactory(() => 0), logger, maxIterations: 10 },
    { workspaceRoot: o.workspaceRoot, stickyModel: model },
  );
  return {
    session,
    requests,
    responses,
    logger,
    async events() {
      await bus.drain();
      return [...seen];
    },
  };
}
