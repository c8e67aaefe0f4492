import { createVirtualClock } from '../../../runtime/core/clock.ts';
import { createMemoryLogger } from '../../../runtime/core/logger.ts';
import { seededRandom } from '../../../runtime/core/seeded-random.ts';
import { createEventBus } from '../../../runtime/events/bus.ts';
import { openPatternStore, type PatternStore } from '../../../runtime/patterns/index.ts';
import { defaultRoutingConfig, type RoutingConfig } from '../../../runtime/routing/index.ts';
import type { MatrixProtocolDeps } from '../matrix-protocol.ts';
import { createMatrixRouter } from '../matrix-router.ts';
import { outcomeTable, type MatrixLike } from '../outcome-table.ts';

/** routing.yaml's defaults with slot 4's pattern knobs (scoring, exploration, …) replaced. */
export function routingWith(pattern: Partial<RoutingConfig['pattern']>): RoutingConfig {
  const r = defaultRoutingConfig();
  return { ...r, pattern: { ...r.pattern, ...pattern } };
}

/**
 * Protocol deps over the runtime's router with v1 stores, a strict bus and a virtual clock, the pool's
 * 'cheap' model as slot 7's default; `stores` collects every store opened.
 */
export function testProtocolDeps(m: MatrixLike & { tasks: MatrixProtocolDeps['tasks'] }, o: { routing?: RoutingConfig; costWeights?: readonly number[]; stores?: PatternStore[] } = {}): MatrixProtocolDeps {
  const logger = createMemoryLogger();
  const clock = createVirtualClock(1_700_000_000_000_000);
  const bus = createEventBus({ mode: 'strict', logger, clock });
  const table = outcomeTable(m);
  const routing = o.routing ?? defaultRoutingConfig();
  return {
    tasks: m.tasks,
    table,
    costWeights: o.costWeights ?? [0],
    openStore: (path) => {
      const s = openPatternStore(path, { logger, clock });
      o.stores?.push(s);
      return s;
    },
    routerFor: (store) => createMatrixRouter({ models: table.models, defaultModel: 'cheap', routing, store, bus, workspacesDir: '/nonexistent/metis-matrix-test', pricingVersion: 'test', random: seededRandom(5) }),
    drain: () => bus.drain(),
  };
}
